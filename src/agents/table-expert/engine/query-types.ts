/**
 * What a query is asked with and what it returns. duckdb-engine.ts (which re-exports them) and
 * statement-runner.ts both use these; they live here so the runner does not import the engine
 * that creates it.
 */
import type { JsonValue } from '../../../protocol/a2a/types.js';

export interface ColumnInfo {
  name: string;
  type: string;
}

/** Which usecases a caller may see; undefined = all (A2A callers of this agent). */
export interface Scope {
  usecases?: readonly string[];
}

export interface QueryOptions {
  scope?: Scope;
  maxRows?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface QueryResult {
  columns: ColumnInfo[];
  rows: JsonValue[][];
  /** rows returned (at most maxRows) */
  rowCount: number;
  /** true when the statement produced more rows than maxRows */
  truncated: boolean;
  elapsedMs: number;
}
