/**
 * A question's plan: what to measure, how to group and filter, in which order. Plain JSON, so a
 * plan travels in artifact metadata and a follow-up question in the same context can refine it.
 */
import type { TimeUnit } from './lexicon.js';

export type AggFn = 'count' | 'count_distinct' | 'sum' | 'avg' | 'min' | 'max' | 'median';
export type CompareOp = '=' | '!=' | '>' | '>=' | '<' | '<=';

export interface ColRef {
  table: string;
  column: string;
  /** a column of whole-number years rather than dates */
  year?: true;
}

export interface Measure {
  fn: AggFn;
  /** absent for count(*) of the base table */
  column?: ColRef;
  /** a named measure of the semantic layer: its SQL is the figure (`fn` is not applied) */
  formula?: { name: string; sql: string };
  /** count_distinct of the column's day (week, month …): "how many days had rain" */
  bucket?: TimeUnit;
  /** a percentage: 100 × the aggregate over rows meeting these filters ÷ the aggregate over all */
  pct?: Filter[];
  /**
   * aggregate per row of `table` first (an order's value = the sum of its lines' amounts; a
   * customer's orders = their count), then `fn` over those per-row figures
   */
  per?: { table: string; key: string; inner: 'sum' | 'count'; child?: string; fk?: string };
}

export type Group =
  | { kind: 'column'; column: ColRef }
  /** a row of a table, shown by its key and its label column */
  | { kind: 'entity'; table: string; key: string; label?: string }
  | { kind: 'time'; column: ColRef; unit: TimeUnit };

export type Filter =
  | { kind: 'compare'; column: ColRef; op: CompareOp; value: string | number }
  | { kind: 'in'; column: ColRef; values: Array<string | number>; negate: boolean }
  | { kind: 'between'; column: ColRef; low: number; high: number }
  /** from inclusive, to exclusive, ISO dates */
  | { kind: 'date_range'; column: ColRef; from?: string; to?: string; label: string }
  | { kind: 'month_of_year'; column: ColRef; month: number }
  /** rows of `table` with op value rows in `child` pointing at them (`customers with more than 10 orders`) */
  | { kind: 'child_count'; table: string; key: string; child: string; fk: string; op: CompareOp; value: number; where?: Filter[] }
  /** "tickets that have been resolved": the column has a value */
  | { kind: 'not_null'; column: ColRef }
  /** 0 = Sunday … 6 = Saturday */
  | { kind: 'day_of_week'; column: ColRef; days: number[] };

export interface Plan {
  shape: 'aggregate' | 'rows' | 'distinct';
  base: string;
  measures: Measure[];
  groups: Group[];
  filters: Filter[];
  /** rows / distinct: the columns to show (rows: all of base when empty) */
  columns: ColRef[];
  order?: { by: 'measure' | 'group' | ColRef; dir: 'asc' | 'desc' };
  limit?: number;
  /** add each group's share of the total, in percent */
  share?: boolean;
}

export interface Choice {
  id: string;
  label: string;
}

export type PlanOutcome =
  | { kind: 'plan'; plan: Plan; sql: string; interpretation: string }
  | { kind: 'ambiguous'; term: string; question: string; choices: Choice[] }
  | { kind: 'declined'; reason: string; hints: string[] };
