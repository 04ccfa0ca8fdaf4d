/** Short markdown for a result: the headline numbers in a sentence, then at most ten rows. */
import type { JsonValue } from '../../../protocol/a2a/types.js';
import type { QueryResult } from '../engine/duckdb-engine.js';

const PREVIEW_ROWS = 10;

export function formatValue(v: JsonValue | undefined): string {
  if (v === null || v === undefined) return '∅';
  if (typeof v === 'number') {
    if (Number.isInteger(v)) return v.toLocaleString('en-US');
    return v.toLocaleString('en-US', { maximumFractionDigits: 2 });
  }
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

const cell = (v: JsonValue | undefined) => formatValue(v).replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function markdownTable(result: Pick<QueryResult, 'columns' | 'rows'>, max = PREVIEW_ROWS): string {
  if (result.columns.length === 0) return '';
  const head = `| ${result.columns.map((c) => c.name).join(' | ')} |`;
  const sep = `| ${result.columns.map(() => '---').join(' | ')} |`;
  const body = result.rows.slice(0, max).map((r) => `| ${r.map(cell).join(' | ')} |`);
  return [head, sep, ...body].join('\n');
}

const isNumeric = (type: string) => /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|FLOAT|DOUBLE|DECIMAL)/.test(type);

/** How the question was read, a sentence with the headline numbers, then the table. */
export function summarize(result: QueryResult, interpretation?: string): string {
  // the reading first, so a wrong reading is seen before the numbers are believed
  const lines: string[] = interpretation ? [`Read as: ${interpretation}.`, ''] : [];
  if (result.rows.length === 0) lines.push('No rows match.');
  else if (result.rows.length === 1 && result.columns.length === 1) lines.push(`**${formatValue(result.rows[0]![0])}**.`);
  else {
    const measureAt = lastNumeric(result);
    const labelAt = result.columns.findIndex((c, i) => i !== measureAt && !isNumeric(c.type));
    if (measureAt >= 0 && labelAt >= 0 && result.rows.length === 1) {
      const r = result.rows[0]!;
      lines.push(`**${formatValue(r[labelAt])}** (${formatValue(r[measureAt])}).`);
    } else if (measureAt >= 0 && labelAt >= 0 && result.rows.length > 1) {
      const top = result.rows.slice(0, 3).map((r) => `**${formatValue(r[labelAt])}** (${formatValue(r[measureAt])})`);
      lines.push(`${result.rowCount}${result.truncated ? '+' : ''} rows. First: ${top.join(', ')}.`);
    } else lines.push(`${result.rowCount}${result.truncated ? '+' : ''} row${result.rowCount === 1 ? '' : 's'}.`);
    lines.push('', markdownTable(result));
    if (result.rowCount > PREVIEW_ROWS) lines.push('', `_${result.rowCount - PREVIEW_ROWS} more rows in the data part._`);
  }
  if (result.truncated) lines.push('', `_The result was cut at ${result.rowCount} rows (the row limit)._`);
  return lines.join('\n');
}

function lastNumeric(result: QueryResult): number {
  for (let i = result.columns.length - 1; i >= 0; i--) {
    const c = result.columns[i]!;
    if (isNumeric(c.type) && c.name !== 'share_pct' && !/_id$/.test(c.name)) return i;
  }
  return -1;
}
