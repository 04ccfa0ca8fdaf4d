/**
 * The draft: what interpret.ts read in a question, before any word is tied to one column. The
 * interpreting passes fill it and the resolver (resolve*.ts) turns it into a plan; the types live
 * here so both sides import them without importing each other.
 */
import type { TimeUnit } from './lexicon.js';
import type { AggFn, CompareOp } from './plan.js';
import type { Meaning } from './vocabulary.js';

export interface Target {
  text: string;
  meanings: Meaning[];
  plural: boolean;
}

export interface DraftMeasure {
  fn?: AggFn;
  target?: Target;
  /** "average number of orders": an average of a count per entity */
  perCount?: boolean;
  /** "how many days had rain": the periods that have rows are counted, not the rows */
  periods?: TimeUnit;
}

export interface DraftDate {
  from?: string;
  to?: string;
  month?: number;
  label: string;
}

export interface Draft {
  measure?: DraftMeasure;
  rankBy?: DraftMeasure;
  groups: Array<{ time?: TimeUnit; target?: Target }>;
  values: Array<{ target: Target; negate: boolean }>;
  numbers: Array<{ target?: Target; op: CompareOp | 'between'; value: number; high?: number; text: string }>;
  childCounts: Array<{ child: Target; op: CompareOp; value: number }>;
  dates: DraftDate[];
  keyLookup?: { target: Target; value: number; contents?: boolean };
  /** "list", "show": rows were asked for in so many words */
  listVerb?: boolean;
  list: boolean;
  distinct: boolean;
  when: boolean;
  superlative?: { kind: 'price' | 'date'; dir: 'asc' | 'desc'; n?: number };
  top?: { dir: 'asc' | 'desc'; n?: number };
  which?: { dir: 'asc' | 'desc'; plural: boolean };
  share: boolean;
  subjects: Target[];
  hints: string[];
  unknown: string[];
  cues: { also: boolean; instead: boolean; only: boolean; whatAbout: boolean; clear: boolean };
  /** a group was introduced by "per"/"each" ("average amount per order"), not "by" */
  perWord?: boolean;
  /** words that ask for something (a ranking, a share, an aggregate) that no pass could place */
  unplaced: string[];
  /** "which X … the most" with no measure named: the planner must ask by what */
  rankMissing?: { text: string; busy: boolean };
  /** "online vs store", "2023 compared with 2024": show the named things side by side */
  compare: boolean;
  /** "never", "without", "didn't": rows of the subject with no related rows */
  never: boolean;
  /** "rate", "percentage of …": a share of rows meeting the value filters */
  rate: boolean;
  /** "had a discount" (> 0), "have been resolved" (a date is set) */
  present: Target[];
  /** day-of-week filter (0 = Sunday) */
  dows?: number[];
  /** "20%": numbers written as percentages, placed next to a column */
  percents: Array<{ target: Target; value: number; text: string }>;
  /** where "top N" or "which" stood, so a later "most" knows what is ranked */
  rankAt?: number;
}
