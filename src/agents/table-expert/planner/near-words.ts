/**
 * Ask before declining. A word the planner cannot place but that is close to something the data
 * has becomes a question with concrete choices instead of a refusal:
 * - a word the schema does not know but nearly spells (a typo: "categry", "revnue") → the columns,
 *   tables and values it is close to;
 * - a column the question names but the plan could not fit ("revenue … category" with no "by") →
 *   "By "category" do you mean one answer per products.category?".
 * The reply is a resolution for that word (term → choice id); the question is planned again with
 * the word standing for the chosen thing, so a follow-up picking a choice continues the task.
 */
import { distance } from 'fastest-levenshtein';
import type { Draft, Target } from './draft.js';
import { lemma } from './lexicon.js';
import { Ambiguity } from './resolve-context.js';
import type { Choice } from './plan.js';
import type { QToken } from './token-types.js';
import type { ColumnRef, Meaning, Vocabulary } from './vocabulary.js';
import { isEnglishWord } from './wordnet.js';

const MAX_CHOICES = 5;
/** the choice id prefix of "one answer per this column" */
const PER = 'by:';

const choiceOf = (m: Meaning): Choice =>
  m.kind === 'table'
    ? { id: m.table, label: `${m.table} (table)` }
    : m.kind === 'value'
      ? { id: `${m.ref.table}.${m.ref.column}=${m.value}`, label: `${m.ref.table}.${m.ref.column} = ${m.value}` }
      : m.kind === 'column'
        ? { id: `${m.ref.table}.${m.ref.column}`, label: `${m.ref.table}.${m.ref.column}` }
        : m.kind === 'formula'
          ? { id: m.table, label: `${m.name} (measure of ${m.table})` }
          : { id: `${m.column.table}.${m.column.column}`, label: `${m.column.table}.${m.column.column}` };

/**
 * Schema phrases a word nearly spells: one edit away for words of up to six letters, two for
 * longer ones. Short words and English words are left alone ("use" is not `user`, "trade" is not
 * `grade`): a real word was meant as itself.
 */
export function nearChoices(word: string, vocab: Vocabulary): Choice[] {
  const raw = word.toLowerCase();
  if (raw.length < 4 || !/^\p{L}+$/u.test(raw) || isEnglishWord(raw)) return [];
  const forms = [...new Set([raw, lemma(raw)])];
  const max = raw.length <= 6 ? 1 : 2;
  const near: Array<{ m: Meaning; d: number }> = [];
  for (const [phrase, meanings] of vocab.phrases) {
    if (phrase.includes(' ') || phrase.length < 4 || forms.every((w) => Math.abs(phrase.length - w.length) > max)) continue;
    const d = Math.min(...forms.map((w) => edits(w, phrase)));
    if (d === 0 || d > max) continue;
    for (const m of meanings) if (m.kind !== 'derived' && m.kind !== 'formula' && m.strength >= 2) near.push({ m, d });
  }
  near.sort((a, b) => a.d - b.d || b.m.strength - a.m.strength);
  const choices = near.map((n) => choiceOf(n.m));
  return choices.filter((c, i) => choices.findIndex((x) => x.id === c.id) === i).slice(0, MAX_CHOICES);
}

/** Levenshtein distance, with two swapped neighbouring letters ("ordres") counted as one edit. */
function edits(a: string, b: string): number {
  const d = distance(a, b);
  if (d !== 2 || a.length !== b.length) return d;
  const diff = [...a].flatMap((c, i) => (c === b[i] ? [] : [i]));
  return diff.length === 2 && diff[1] === diff[0]! + 1 && a[diff[0]!] === b[diff[1]!] && a[diff[1]!] === b[diff[0]!] ? 1 : d;
}

/**
 * The planner's unknown words, asked about when every one of them is close to something in the
 * data (one at a time: the reply to the first brings the question back for the next); otherwise
 * nothing is asked and the planner declines as before.
 */
export function askAboutUnknown(unknown: readonly string[], vocab: Vocabulary): void {
  const near = unknown.map((w) => ({ w, choices: nearChoices(w, vocab) }));
  if (!near.length || near.some((n) => !n.choices.length)) return;
  const { w, choices } = near[0]!;
  throw new Ambiguity(w, choices, choices.length === 1 ? `By "${w}" do you mean ${choices[0]!.label}?` : `By "${w}" do you mean one of these?`);
}

/** A word the reply resolved to a column, table or value: the token it stands for now. */
export function applyChosenWords(tokens: QToken[], vocab: Vocabulary, resolutions: Readonly<Record<string, string>>): QToken[] {
  return tokens.map((t) => {
    if (t.t !== 'unknown') return t;
    const meaning = meaningOfChoice(resolutions[t.text.toLowerCase()], vocab);
    return meaning ? { t: 'schema', meanings: [meaning], plural: /[^s]s$/i.test(t.text), text: t.text, used: false } : t;
  });
}

function meaningOfChoice(id: string | undefined, vocab: Vocabulary): Meaning | undefined {
  if (!id) return undefined;
  const eq = id.indexOf('=');
  const ref = vocab.columns.get(eq < 0 ? id : id.slice(0, eq));
  if (ref && eq >= 0) return { kind: 'value', ref, value: id.slice(eq + 1), strength: 3 };
  if (ref) return { kind: 'column', ref, strength: 3 };
  if (vocab.tables.has(id)) return { kind: 'table', table: id, strength: 3 };
  return undefined;
}

const groupable = (r: ColumnRef) => r.role === 'category' || r.role === 'text';

/** Subjects the reply said to group by ("by:products.category") become groups of that column. */
export function placeChosenGroups(d: Draft, resolutions: Readonly<Record<string, string>>): void {
  for (const s of [...d.subjects]) {
    const id = resolutions[s.text.toLowerCase()];
    if (!id?.startsWith(PER)) continue;
    const meanings = s.meanings.filter((m) => m.kind === 'column' && `${m.ref.table}.${m.ref.column}` === id.slice(PER.length));
    if (!meanings.length) continue;
    d.subjects = d.subjects.filter((x) => x !== s);
    d.groups.push({ target: { ...s, meanings } });
  }
}

/**
 * A column the question names by its whole name or a synonym (not a part of a name: "ship" of
 * `Ship Mode`) but the plan left out, in a question with no grouping: one answer per value of that
 * column may be what was meant. Asked, never assumed.
 */
export function askToGroupBy(unused: readonly Target[]): void {
  for (const s of unused) {
    const cols = s.meanings.flatMap((m) => (m.kind === 'column' && m.strength >= 2 && groupable(m.ref) ? [m.ref] : []));
    if (!cols.length) continue;
    const choices = cols.slice(0, MAX_CHOICES).map((r) => ({ id: `${PER}${r.table}.${r.column}`, label: `one answer per ${r.table}.${r.column}` }));
    const only = cols.length === 1 ? `${cols[0]!.table}.${cols[0]!.column}` : undefined;
    throw new Ambiguity(s.text, choices, only ? `By "${s.text}" do you mean ${only}, one answer per ${s.text}?` : `By "${s.text}" do you mean one of these?`);
  }
}
