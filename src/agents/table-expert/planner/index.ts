/**
 * The deterministic planner: a question in English → SQL over the datasets, with no model. It
 * handles the common shapes (counts, sums/averages/min/max/median by group, top-N, shares,
 * equality/range/date filters, distinct values, time buckets, key lookups, "which X has the most
 * Y") by matching words to the schema, asks when a word has two equally good meanings, and
 * declines plainly when a question is beyond it. A follow-up in the same context ("only in 2024",
 * "by channel instead", "top 3") refines the previous question.
 */
import { compilePlan } from './compile.js';
import { reachable } from './joins.js';
import type { Draft } from './draft.js';
import { interpret } from './interpret.js';
import { UNSUPPORTED } from './lexicon.js';
import { applyChosenWords } from './near-words.js';
import { normalizeQuestion } from './normalize.js';
import type { PlanOutcome } from './plan.js';
import { Ambiguity, Decline, resolve } from './resolve.js';
import { tokenizeQuestion } from './tokens.js';
import { labelColumn, type Vocabulary } from './vocabulary.js';

export { buildVocabulary, type Vocabulary } from './vocabulary.js';
export type { Plan, PlanOutcome, Choice } from './plan.js';

/** What a context remembers of its last question, to refine it. */
export interface PlannerMemory {
  question: string;
  draft: Draft;
}

export interface PlanOptions {
  previous?: PlannerMemory;
  /** answers to earlier INPUT_REQUIRED questions: term → choice id */
  resolutions?: Readonly<Record<string, string>>;
  maxRows: number;
}

const FOLLOW_UP = /^\s*(and|but|only|just|now|what about|how about|instead|also|same|then|in|for|by|per|without|excluding|except|top|bottom|make it|limit|sorted|as)\b/i;

export function planQuestion(question: string, vocab: Vocabulary, opts: PlanOptions): { outcome: PlanOutcome; memory?: PlannerMemory } {
  const text = question.trim();
  const lower = normalizeQuestion(text).toLowerCase();
  for (const [re, reason] of UNSUPPORTED) {
    if (re.test(lower)) return { outcome: { kind: 'declined', reason: `I can't answer that with a query: ${reason}.`, hints: hints(vocab) } };
  }
  const draft = interpret(applyChosenWords(tokenizeQuestion(normalizeQuestion(text), vocab), vocab, opts.resolutions ?? {}));
  const cue = FOLLOW_UP.test(text) || draft.cues.also || draft.cues.instead || draft.cues.whatAbout || draft.cues.clear || draft.cues.only;
  const candidates: Draft[] = [];
  if (opts.previous && cue) candidates.push(merge(opts.previous.draft, draft));
  else {
    candidates.push(draft);
    if (opts.previous) candidates.push(merge(opts.previous.draft, draft));
  }
  let first: PlanOutcome | undefined;
  for (const d of candidates) {
    const outcome = attempt(d, vocab, opts);
    if (outcome.kind !== 'declined') return { outcome, memory: { question: d === draft ? text : `${opts.previous!.question} / ${text}`, draft: d } };
    first ??= outcome;
  }
  return { outcome: first! };
}

function attempt(d: Draft, vocab: Vocabulary, opts: PlanOptions): PlanOutcome {
  try {
    const plan = resolve(d, vocab, opts.resolutions ?? {});
    const { sql, interpretation } = compilePlan(plan, vocab, opts.maxRows);
    return { kind: 'plan', plan, sql, interpretation };
  } catch (e) {
    if (e instanceof Ambiguity) return { kind: 'ambiguous', term: e.term, question: e.question ?? `Which "${e.term}" do you mean?`, choices: e.choices };
    if (e instanceof Decline) return { kind: 'declined', reason: `${e.message}.`, hints: hints(vocab) };
    throw e;
  }
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const columnsOfTarget = (t: { meanings: Draft['subjects'][number]['meanings'] }) => t.meanings.filter((m) => m.kind === 'column');
const sameColumn = (a: Draft['values'][number], b: Draft['values'][number]) =>
  a.target.meanings.some((x) => x.kind === 'value' && b.target.meanings.some((y) => y.kind === 'value' && y.ref.table === x.ref.table && y.ref.column === x.ref.column));

/** The previous question's draft with the follow-up's parts laid over it. */
function merge(prev: Draft, patch: Draft): Draft {
  const d = clone(prev);
  d.unknown = [...patch.unknown];
  d.unplaced = [...patch.unplaced];
  // drafts remembered by an older version lack the newer fields
  d.percents = [...(d.percents ?? []), ...patch.percents];
  d.compare ??= false;
  d.present = [...(d.present ?? []), ...patch.present];
  d.never ??= false;
  d.rate ??= false;
  if (patch.dows) d.dows = patch.dows;
  if (patch.never) d.never = true;
  if (patch.rate) d.rate = true;
  if (patch.compare) d.compare = true;
  if (patch.rankMissing) d.rankMissing = patch.rankMissing;
  if (patch.cues.clear) {
    d.values = [];
    d.numbers = [];
    d.dates = [];
    d.childCounts = [];
  }
  for (const v of patch.values) {
    if (!patch.cues.also) d.values = d.values.filter((x) => !sameColumn(x, v));
    d.values.push(v);
  }
  if (patch.numbers.length) d.numbers = [...d.numbers.filter((x) => !patch.numbers.some((p) => p.target?.text === x.target?.text)), ...patch.numbers];
  if (patch.dates.length) d.dates = patch.dates;
  d.childCounts.push(...patch.childCounts);
  if (patch.groups.length) d.groups = patch.cues.also ? [...d.groups, ...patch.groups] : patch.groups;
  if (patch.top) {
    d.top = patch.top;
    delete d.which;
  }
  if (patch.superlative) d.superlative = patch.superlative;
  if (patch.share) d.share = true;
  if (patch.measure) {
    if (patch.measure.target) d.measure = patch.measure;
    else if (d.measure) d.measure.fn = patch.measure.fn!;
    else if (d.rankBy) d.rankBy.fn = patch.measure.fn!;
    else d.measure = patch.measure;
  }
  if (patch.rankBy) d.rankBy = patch.rankBy;
  for (const s of patch.subjects) {
    const isColumn = columnsOfTarget(s).length > 0 && !s.meanings.some((m) => m.kind === 'table');
    const slot = d.rankBy ?? d.measure;
    if (slot?.target && isColumn === !slot.target.meanings.some((m) => m.kind === 'table')) slot.target = s;
    else d.subjects.push(s);
  }
  d.hints.push(...patch.hints);
  return d;
}

/** Three questions this schema can answer, to show after a decline. */
export function hints(vocab: Vocabulary): string[] {
  const words = (name: string) => name.replace(/_/g, ' ');
  const columns = [...vocab.columns.values()];
  const tables = [...vocab.tables.values()].sort((a, b) => b.rowCount - a.rowCount);
  // a money-like measure reads best; then any measure
  const measure = [/(amount|revenue|sales|total)/i, /price/i, /./].map((re) => columns.find((c) => c.role === 'measure' && re.test(c.column))).find(Boolean);
  const reach = measure ? reachable(measure.table, vocab.relations) : undefined;
  const near = (t: string) => !reach || (reach.has(t) && !reach.get(t)!.fanout);
  const category = columns.find((c) => c.role === 'category' && near(c.table)) ?? columns.find((c) => c.role === 'category');
  const entity = tables.find((t) => t.key && labelColumn(t) && t.name !== measure?.table && near(t.name));
  const date = columns.find((c) => c.role === 'date' && near(c.table));
  const out: string[] = [];
  if (tables[0]) out.push(`How many ${words(tables[0].name)} are there?`);
  if (measure && category) out.push(`Total ${words(measure.column)} by ${words(category.column)}`);
  if (measure && entity) out.push(`Top 5 ${words(entity.name)} by ${words(measure.column)}`);
  else if (date) out.push(`Number of ${words(date.table)} by month`);
  return out;
}
