/**
 * Dates a file's reader leaves as text or numbers, inferred when the table is loaded:
 * - text columns whose every value parses with one common format ("Jan 1 2000", "March 5, 2021",
 *   "05/03/2021 14:30", "5.3.2021") become DATE (or TIMESTAMP when the format has a time);
 * - integer columns of years (whole numbers up to 2100, the latest from 1000, the column or table
 *   named for a year or a date: `year`, `independence` of `country_by_independence_date`) are
 *   marked as years, so "after 1945" and "in 2014" filter them.
 * DuckDB's own sniffer already reads ISO dates and timestamps as such. A format is chosen on a
 * sample and then checked against the whole column in one scan; a column where day and month
 * could be either way round (every day ≤ 12) is left as text, and `describe` says so.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent, quoteString } from '../sql/sql-text.js';
import type { ColumnInfo } from './query-types.js';

export interface InferredDate {
  column: string;
  /** what the column now is: a DATE or TIMESTAMP parsed from text, or an integer year */
  as: 'DATE' | 'TIMESTAMP' | 'year';
  /** the strptime format the text was parsed with */
  format?: string;
  /** a column left as text, and why */
  note?: string;
}

/** rows read to choose a format: the first of the file */
const SAMPLE = 2_000;
// biome-ignore format: one format per line reads best
const FORMATS: ReadonlyArray<{ format: string; time: boolean }> = [
  { format: '%b %d %Y', time: false },
  { format: '%b %d, %Y', time: false },
  { format: '%B %d %Y', time: false },
  { format: '%B %d, %Y', time: false },
  { format: '%d %b %Y', time: false },
  { format: '%d %B %Y', time: false },
  { format: '%d-%b-%Y', time: false },
  { format: '%a, %d %b %Y', time: false },
  { format: '%m/%d/%Y', time: false },
  { format: '%d/%m/%Y', time: false },
  { format: '%d.%m.%Y', time: false },
  { format: '%Y/%m/%d', time: false },
  { format: '%m/%d/%Y %H:%M', time: true },
  { format: '%m/%d/%Y %H:%M:%S', time: true },
  { format: '%d/%m/%Y %H:%M', time: true },
  { format: '%d/%m/%Y %H:%M:%S', time: true },
  { format: '%Y/%m/%d %H:%M:%S', time: true },
  { format: '%a, %d %b %Y %H:%M:%S %z', time: true },
];
/** formats that read the same text with day and month swapped */
const SWAPPED = new Map([
  ['%m/%d/%Y', '%d/%m/%Y'],
  ['%m/%d/%Y %H:%M', '%d/%m/%Y %H:%M'],
  ['%m/%d/%Y %H:%M:%S', '%d/%m/%Y %H:%M:%S'],
]);

const INTEGER = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT)$/;
const YEAR_NAME = /(^|[^a-z])(year|yr|date|founded|established|independence|born|birth|built|opened|released|discovered)/i;

const parse = (column: string, format: string) => `try_strptime(${column}, ${quoteString(format)})`;

/**
 * The view's select list with the inferred columns cast (`* REPLACE (…)`), and what was inferred.
 * `from` is the reader (`read_csv('…')`); `table` names the table, whose words can say "date".
 */
export async function inferDates(conn: DuckDBConnection, table: string, from: string, columns: readonly ColumnInfo[]): Promise<{ select: string; inferred: InferredDate[] }> {
  const inferred: InferredDate[] = [];
  const text = columns.filter((c) => c.type === 'VARCHAR');
  const tableSaysDate = YEAR_NAME.test(table.replace(/_/g, ' '));
  const yearCandidates = columns.filter((c) => INTEGER.test(c.type) && (YEAR_NAME.test(c.name) || (tableSaysDate && columns.length <= 3)));
  // one read of the first rows for every text column and format: each read of a file re-parses it
  const chosen: Array<{ column: string; format: string; time: boolean }> = [];
  if (text.length) {
    const looksLikeDate = (col: string) => `CASE WHEN length(${col}) BETWEEN 6 AND 40 AND regexp_matches(${col}, '\\d') THEN ${col} END`;
    const checks = text.flatMap((c, ci) => {
      const v = looksLikeDate(quoteIdent(c.name));
      return [`count(${quoteIdent(c.name)}) AS n${ci}`, `count(${v}) AS d${ci}`, ...FORMATS.map((f, fi) => `count(${parse(v, f.format)}) AS f${ci}_${fi}`)];
    });
    const row = (await rowsOf(conn, `SELECT ${checks.join(', ')} FROM (SELECT * FROM ${from} LIMIT ${SAMPLE})`))[0] ?? [];
    const width = FORMATS.length + 2;
    text.forEach((c, ci) => {
      const [n, candidates] = [Number(row[ci * width]), Number(row[ci * width + 1])];
      // every non-null value of the sample must look like a date and parse
      if (!n || candidates !== n) return;
      const fits = FORMATS.filter((_, fi) => Number(row[ci * width + 2 + fi]) === n);
      const first = fits[0];
      if (!first) return;
      const swapped = SWAPPED.get(first.format);
      if (swapped && fits.some((f) => f.format === swapped)) {
        inferred.push({ column: c.name, as: first.time ? 'TIMESTAMP' : 'DATE', note: `left as text: day and month could be either way round (${first.format} or ${swapped})` });
        return;
      }
      chosen.push({ column: c.name, ...first });
    });
  }
  // the sample fits; every non-empty value of the whole column must too (one scan for all columns)
  const replace: string[] = [];
  if (chosen.length || yearCandidates.length) {
    const misses = chosen.map((x) => `count(*) FILTER (WHERE ${quoteIdent(x.column)} <> '' AND ${parse(quoteIdent(x.column), x.format)} IS NULL)`);
    const ranges = yearCandidates.flatMap((c) => [`min(${quoteIdent(c.name)})`, `max(${quoteIdent(c.name)})`]);
    const row = (await rowsOf(conn, `SELECT ${[...misses, ...ranges].join(', ')} FROM ${from}`))[0] ?? [];
    chosen.forEach((x, i) => {
      if (Number(row[i]) !== 0) return;
      const as = x.time ? 'TIMESTAMP' : 'DATE';
      replace.push(`CAST(${parse(quoteIdent(x.column), x.format)} AS ${as}) AS ${quoteIdent(x.column)}`);
      inferred.push({ column: x.column, as, format: x.format });
    });
    yearCandidates.forEach((c, i) => {
      const [lo, hi] = [Number(row[chosen.length + 2 * i]), Number(row[chosen.length + 2 * i + 1])];
      // years BC are negative (an independence in -1523): the range only rules out other numbers
      if (lo >= -5000 && hi <= 2100 && hi >= 1000) inferred.push({ column: c.name, as: 'year' });
    });
  }
  return { select: replace.length ? `* REPLACE (${replace.join(', ')})` : '*', inferred };
}

async function rowsOf(conn: DuckDBConnection, sql: string): Promise<unknown[][]> {
  const reader = await conn.runAndReadAll(sql);
  return reader.getRows() as unknown[][];
}
