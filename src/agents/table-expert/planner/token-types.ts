/** A question's typed tokens (tokens.ts makes them; understand.ts adds the ones it reads from general English). */
import type { Keyword, TimeUnit } from './lexicon.js';
import type { Meaning } from './vocabulary.js';

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
