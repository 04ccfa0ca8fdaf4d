/**
 * A question as a list of typed tokens: keywords, time units, dates and numbers, and schema
 * phrases (each with every meaning it could have), matched longest-first over word lemmas.
 */
import { FILLER, KEYWORDS, lemma, MONTHS, TIME_UNITS, VERB_HINTS, type Keyword, type TimeUnit } from './lexicon.js';
import type { Meaning, Vocabulary } from './vocabulary.js';

export type QToken = { text: string; used: boolean } & (
  | { t: 'kw'; kw: Keyword }
  | { t: 'time'; unit: TimeUnit }
  | { t: 'month'; month: number }
  | { t: 'quarter'; quarter: number }
  | { t: 'number'; value: number; year: boolean }
  | { t: 'date'; iso: string }
  | { t: 'yearmonth'; year: number; month: number }
  | { t: 'schema'; meanings: Meaning[]; plural: boolean }
  | { t: 'verb'; tables: readonly string[] }
  | { t: 'filler' }
  | { t: 'unknown' }
);

interface Word {
  raw: string;
  lemma: string;
}

const WORD_RE = /\d{4}-\d{2}-\d{2}|\d{4}-\d{2}(?!\d)|q[1-4]\b|\d[\d,]*(?:\.\d+)?\s?[km]?\b%?|[<>]=?|%|[\p{L}][\p{L}\p{N}_'-]*/giu;

function words(question: string): Word[] {
  const text = question.replace(/[‘’]/g, "'").replace(/[“”]/g, '"');
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
      const meanings = vocab.phrases.get(phrase);
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
      out.push({ t: 'unknown', text: w.raw, used: false });
      i++;
    }
  }
  return out;
}
