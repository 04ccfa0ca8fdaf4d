/**
 * Column profiles: nulls, distinct counts, min/max and top values, computed in one scan per table
 * plus one small GROUP BY per low-cardinality column. Distinct counts are approximate
 * (HyperLogLog, `approx_count_distinct`) so that a 10M-row table profiles in about a second.
 */
import type { JsonValue } from '../../../protocol/a2a/types.js';
import type { TableEngine, TableInfo } from '../engine/duckdb-engine.js';
import { quoteIdent } from '../sql/sql-text.js';

export interface ColumnProfile {
  name: string;
  type: string;
  nullCount: number;
  /** exact for tables up to EXACT_DISTINCT_ROWS rows, else approximate (HyperLogLog) */
  distinctCount: number;
  min?: JsonValue;
  max?: JsonValue;
  /** most frequent values, most frequent first (low-cardinality columns only) */
  topValues?: Array<{ value: JsonValue; count: number }>;
  /** every value, when the column has at most CATEGORY_LIMIT of them (the planner matches words to these) */
  values?: string[];
  /**
   * every value of a text column with more than CATEGORY_LIMIT but at most LOOKUP_LIMIT of them
   * (names, countries, symbols): the planner matches a question's names to these, but they are
   * not categories to group by and are left out of describe and the model's prompt
   */
  lookup?: string[];
}

export interface TableProfile extends TableInfo {
  rowCount: number;
  /** whether the columns' distinctCount is exact */
  distinctExact: boolean;
  columns: Array<ColumnProfile>;
  /** columns whose values identify a row, when one was found */
  key?: string[];
  profiledAt: string;
}

export const CATEGORY_LIMIT = 200;
/** text columns with up to this many distinct values are profiled for lookups (bounded memory) */
export const LOOKUP_LIMIT = 20_000;
const LOOKUP_MAX_CHARS = 60;
/** up to this many rows, distinct counts are exact; beyond, HyperLogLog keeps profiling to one fast scan */
export const EXACT_DISTINCT_ROWS = 1_000_000;
const TOP_VALUES = 5;
const ORDERABLE = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|DECIMAL|DATE|TIME|TIMESTAMP|VARCHAR|BOOLEAN|UUID|INTERVAL)/;

export function isNumericType(type: string): boolean {
  return /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|DECIMAL|REAL)/.test(type);
}
export function isTemporalType(type: string): boolean {
  return /^(DATE|TIMESTAMP)/.test(type);
}
export function isTextType(type: string): boolean {
  return type === 'VARCHAR' || type.startsWith('VARCHAR');
}

const num = (v: JsonValue | undefined): number => (typeof v === 'number' ? v : Number(v ?? 0));

export async function profileTable(engine: TableEngine, info: TableInfo, signal?: AbortSignal): Promise<TableProfile> {
  const t = quoteIdent(info.name);
  // Profiles may scan every row of a large file: give them more time than a user query.
  const timeoutMs = Math.max(engine.limits.timeoutMs, 120_000);
  const counted = await engine.internal(`SELECT count(*) FROM ${t}`, { maxRows: 1, timeoutMs, signal });
  const exact = num(counted.rows[0]?.[0]) <= EXACT_DISTINCT_ROWS;
  const select = ['count(*)'];
  for (const c of info.columns) {
    const col = quoteIdent(c.name);
    const orderable = ORDERABLE.test(c.type) && !c.type.endsWith('[]');
    select.push(`count(${col})`, exact ? `count(DISTINCT ${col})` : `approx_count_distinct(${col})`, orderable ? `min(${col})` : 'NULL', orderable ? `max(${col})` : 'NULL');
  }
  const r = await engine.internal(`SELECT ${select.join(', ')} FROM ${t}`, { maxRows: 1, timeoutMs, signal });
  const row = r.rows[0] ?? [];
  const rowCount = num(row[0]);
  const columns: ColumnProfile[] = info.columns.map((c, i) => {
    const nonNull = num(row[1 + i * 4]);
    const distinct = Math.min(num(row[2 + i * 4]), nonNull);
    const min = row[3 + i * 4];
    const max = row[4 + i * 4];
    return {
      name: c.name,
      type: c.type,
      nullCount: rowCount - nonNull,
      distinctCount: distinct,
      ...(min !== null && min !== undefined ? { min } : {}),
      ...(max !== null && max !== undefined ? { max } : {}),
    };
  });
  for (const c of columns) {
    const lowCardinality = c.distinctCount > 0 && c.distinctCount <= CATEGORY_LIMIT * 1.1;
    const wanted = lowCardinality && (isTextType(c.type) || c.type === 'BOOLEAN' || c.distinctCount <= 20);
    if (!wanted) continue;
    const col = quoteIdent(c.name);
    const top = await engine.internal(`SELECT ${col}, count(*) AS n FROM ${t} WHERE ${col} IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ${CATEGORY_LIMIT + 1}`, {
      maxRows: CATEGORY_LIMIT + 1,
      timeoutMs,
      signal,
    });
    c.topValues = top.rows.slice(0, TOP_VALUES).map((v) => ({ value: v[0]!, count: num(v[1]) }));
    if (isTextType(c.type) && top.rows.length <= CATEGORY_LIMIT) {
      c.values = top.rows.map((v) => String(v[0]));
      c.distinctCount = top.rows.length;
    }
  }
  for (const c of columns) {
    if (c.values || !isTextType(c.type) || c.distinctCount <= CATEGORY_LIMIT || c.distinctCount > LOOKUP_LIMIT * 1.1) continue;
    const col = quoteIdent(c.name);
    const r = await engine.internal(`SELECT DISTINCT ${col} FROM ${t} WHERE ${col} IS NOT NULL AND length(${col}) <= ${LOOKUP_MAX_CHARS} LIMIT ${LOOKUP_LIMIT + 1}`, {
      maxRows: LOOKUP_LIMIT + 1,
      timeoutMs,
      signal,
    });
    if (r.rows.length <= LOOKUP_LIMIT) c.lookup = r.rows.map((v) => String(v[0]));
  }
  const key = (await findKey(engine, info, columns, rowCount, timeoutMs, signal)) ?? (await uniqueColumn(engine, info, columns, rowCount, timeoutMs, signal));
  return { ...info, rowCount, distinctExact: exact, columns, ...(key ? { key } : {}), profiledAt: new Date().toISOString() };
}

/** `id`, `<table>_id` or `<singular>_id`, if its values are unique and never null. */
async function findKey(engine: TableEngine, info: TableInfo, columns: ColumnProfile[], rowCount: number, timeoutMs: number, signal?: AbortSignal): Promise<string[] | undefined> {
  if (rowCount === 0) return undefined;
  const names = new Set(['id', `${info.name}_id`, `${singular(info.name)}_id`]);
  for (const c of columns) {
    if (!names.has(c.name.toLowerCase()) || c.nullCount > 0) continue;
    // approximate distinct counts are within a few percent; confirm exactly
    if (c.distinctCount < rowCount * 0.9) continue;
    const col = quoteIdent(c.name);
    const r = await engine.internal(`SELECT count(DISTINCT ${col}) = count(*) FROM ${quoteIdent(info.name)}`, { maxRows: 1, timeoutMs, signal });
    if (r.rows[0]?.[0] === true) return [c.name];
  }
  return undefined;
}

/**
 * A table with no id column: the first text column (else integer) whose values are unique and
 * never null is its key (`Symbol` of a stock list, `country` of a table of facts per country).
 */
async function uniqueColumn(engine: TableEngine, info: TableInfo, columns: ColumnProfile[], rowCount: number, timeoutMs: number, signal?: AbortSignal): Promise<string[] | undefined> {
  if (rowCount < 2) return undefined;
  const candidates = [...columns.filter((c) => isTextType(c.type)), ...columns.filter((c) => /INT/.test(c.type) && !/^(year|date)/i.test(c.name))].filter((c) => c.nullCount === 0 && c.distinctCount >= rowCount * 0.9);
  for (const c of candidates.slice(0, 3)) {
    const col = quoteIdent(c.name);
    const r = await engine.internal(`SELECT count(DISTINCT ${col}) = count(*) FROM ${quoteIdent(info.name)}`, { maxRows: 1, timeoutMs, signal });
    if (r.rows[0]?.[0] === true) return [c.name];
  }
  return undefined;
}

/** English singular of a table name's last word: orders → order, categories → category. */
export function singular(word: string): string {
  if (/ies$/.test(word) && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(sses|uses|xes|zes|ches|shes)$/.test(word)) return word.slice(0, -2);
  if (/s$/.test(word) && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}
