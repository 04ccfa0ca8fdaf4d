/**
 * A question as a list of typed tokens: keywords, time units, dates and numbers, and schema
 * phrases (each with every meaning it could have), matched longest-first over word lemmas.
 */
import { FILLER, KEYWORDS, lemma, MONTHS, TIME_UNITS, VERB_HINTS } from './lexicon.js';
import type { QToken } from './token-types.js';
import { understandWord } from './understand.js';
import type { Meaning, Vocabulary } from './vocabulary.js';

export type { QToken } from './token-types.js';

interface Word {
  raw: string;
  lemma: string;
}

const WORD_RE = /\d{4}-\d{2}-\d{2}|\d{4}-\d{2}(?!\d)|q[1-4]\b|\d[\d,]*(?:\.\d+)?\s?[km]?\b%?|[<>]=?|%|[\p{L}][\p{L}\p{N}_'-]*/giu;

function words(question: string): Word[] {
  // "P/E" is one word
  const text = question
    .replace(/[‘’]/g, "'")
    .replace(/[“”]/g, '"')
    .replace(/\b(\p{L})\/(\p{L})\b/gu, '$1$2')
    // "100 million", "one billion": a number
    .replace(/\b(\d+(?:\.\d+)?|one|two|three|five|ten) (thousand|million|billion)\b/gi, (_m, n: string, scale: string) => {
      const base = Number(n) || { one: 1, two: 2, three: 3, five: 5, ten: 10 }[n.toLowerCase()]!;
      return String(base * { thousand: 1e3, million: 1e6, billion: 1e9 }[scale.toLowerCase() as 'thousand']!);
    });
  const out: Word[] = [];
  for (const m of text.matchAll(WORD_RE)) {
    const raw = m[0]!.trim();
    out.push({ raw, lemma: /^[\p{L}]/u.test(raw) ? lemma(raw) : raw.toLowerCase() });
  }
  return out;
}

function numberOf(raw: string): number | undefined {
  const m = /^(\d[\d,]*(?:\.\d+)?)\s?([km])?%?$/i.exec(raw);
  if (!m) return undefined;
  const base = Number(m[1]!.replace(/,/g, ''));
  if (!Number.isFinite(base)) return undefined;
  const factor = m[2]?.toLowerCase() === 'k' ? 1_000 : m[2]?.toLowerCase() === 'm' ? 1_000_000 : 1;
  return base * factor;
}

export function tokenizeQuestion(question: string, vocab: Vocabulary): QToken[] {
  const ws = words(question);
  const out: QToken[] = [];
  let i = 0;
  while (i < ws.length) {
    const w = ws[i]!;
    if (/^\d{4}-\d{2}-\d{2}$/.test(w.raw)) {
      out.push({ t: 'date', iso: w.raw, text: w.raw, used: false });
      i++;
      continue;
    }
    if (/^\d{4}-\d{2}$/.test(w.raw)) {
      out.push({ t: 'yearmonth', year: Number(w.raw.slice(0, 4)), month: Number(w.raw.slice(5)), text: w.raw, used: false });
      i++;
      continue;
    }
    if (/^q[1-4]$/i.test(w.raw)) {
      out.push({ t: 'quarter', quarter: Number(w.raw[1]), text: w.raw, used: false });
      i++;
      continue;
    }
    const n = numberOf(w.raw);
    if (n !== undefined) {
      const year = Number.isInteger(n) && n >= 1900 && n <= 2100 && /^\d{4}$/.test(w.raw);
      out.push({ t: 'number', value: n, year, text: w.raw, used: false });
      i++;
      continue;
    }
    let matched = false;
    for (let len = Math.min(Math.max(vocab.maxPhraseWords, 4), ws.length - i); len >= 1 && !matched; len--) {
      const slice = ws.slice(i, i + len);
      if (slice.some((x) => numberOf(x.raw) !== undefined)) continue;
      const phrase = slice.map((x) => x.lemma).join(' ');
      const raw = slice.map((x) => x.raw).join(' ');
      const kw = KEYWORDS.get(phrase);
      const unit = TIME_UNITS.get(phrase);
      const month = len === 1 ? MONTHS.get(phrase) : undefined;
      const meanings = exactOnly(vocab.phrases.get(phrase), raw);
      const verb = VERB_HINTS.get(slice.map((x) => x.raw.toLowerCase()).join(' '));
      let tok: QToken | undefined;
      // "may" is a month only next to a year or a day number
      const prev = out[out.length - 1];
      // "sum of total": after an aggregate word, a column named like a keyword is the column
      const columnNamedLikeKeyword = kw && meanings?.some((m) => m.kind === 'column' && m.strength >= 3) && prev?.t === 'kw' && ['count', 'sum', 'avg', 'min', 'max', 'median'].includes(prev.kw);
      if (month !== undefined && !(phrase === 'may' && numberOf(ws[i + 1]?.raw ?? '') === undefined)) tok = { t: 'month', month, text: raw, used: false };
      else if (kw && !columnNamedLikeKeyword) tok = { t: 'kw', kw, text: raw, used: false };
      else if (unit) tok = { t: 'time', unit, text: raw, used: false };
      else if (meanings) tok = { t: 'schema', meanings, plural: slice.some((x) => x.lemma !== x.raw.toLowerCase() && /s$/i.test(x.raw)), text: raw, used: false };
      else if (verb) tok = { t: 'verb', tables: verb, text: raw, used: false };
      else if (FILLER.has(phrase)) tok = { t: 'filler', text: raw, used: false };
      if (tok) {
        out.push(tok);
        i += len;
        matched = true;
      }
    }
    if (!matched) {
      // "marital status", "contact type": a generic noun after a column's name adds nothing
      const prev = out[out.length - 1];
      if (TRAILING.has(w.lemma) && prev?.t === 'schema' && prev.meanings.some((m) => m.kind === 'column')) {
        out.push({ t: 'filler', text: w.raw, used: false });
        i++;
        continue;
      }
      out.push(...understandWord(w.raw, vocab));
      i++;
    }
  }
  return compounds(out);
}

/**
 * Two schema words side by side that make one name:
 * - "product category", "customer country": a table's noun before one of its attribute columns
 *   is that column (the table's noun only says whose column it is);
 * - "housing loan" where `housing` and `loan` are both yes/no columns: one of them, or both? Not
 *   guessed: the pair stays an unknown word.
 */
function compounds(tokens: QToken[]): QToken[] {
  const yesNo = (t: QToken | undefined) => t?.t === 'schema' && t.meanings.length > 0 && t.meanings.every((m) => (m.kind === 'column' || m.kind === 'value') && m.ref.type === 'BOOLEAN');
  const out: QToken[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const owned = ownedColumn(tokens[i]!, tokens[i + 1]);
    if (owned) {
      out.push(owned);
      i++;
    } else if (yesNo(tokens[i]) && yesNo(tokens[i + 1])) {
      out.push({ t: 'unknown', text: `${tokens[i]!.text} ${tokens[i + 1]!.text}`, used: false });
      i++;
    } else out.push(tokens[i]!);
  }
  return out;
}

/** "product category": the table named by `owner` and its column named by `next`, as one column token. */
function ownedColumn(owner: QToken, next: QToken | undefined): QToken | undefined {
  if (owner.t !== 'schema' || next?.t !== 'schema' || owner.plural) return undefined;
  const tables = new Set(owner.meanings.flatMap((m) => (m.kind === 'table' ? [m.table] : [])));
  if (!tables.size) return undefined;
  // only attributes one groups or filters by: "how many people signed up" counts people, not sign-up dates
  const columns = next.meanings.filter((m) => m.kind === 'column' && tables.has(m.ref.table) && (m.ref.role === 'category' || m.ref.role === 'text'));
  if (!columns.length) return undefined;
  return { t: 'schema', meanings: columns, plural: next.plural, text: `${owner.text} ${next.text}`, used: false };
}

const TRAILING = new Set(['status', 'type', 'kind', 'class', 'level', 'group', 'category', 'name', 'field', 'column']);

/** Codes written in capitals in the data (tickers such as `ON`, `ALL`) match only when written so. */
function exactOnly(meanings: Meaning[] | undefined, raw: string): Meaning[] | undefined {
  if (!meanings?.some((m) => m.kind === 'value' && m.exact)) return meanings;
  const kept = meanings.filter((m) => m.kind !== 'value' || !m.exact || m.value === raw || m.value === raw.replace(/'s$/, ''));
  // "FR" written in capitals is the code `FR`, not the language `fr`
  const sameCase = kept.filter((m) => m.kind === 'value' && m.value === raw);
  const out = sameCase.length && raw.length <= 5 ? kept.filter((m) => m.kind !== 'value' || m.value === raw) : kept;
  return out.length ? out : undefined;
}
