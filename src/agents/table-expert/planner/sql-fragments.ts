/**
 * The SQL pieces both compilers build from: a filter's condition, a group's expressions, a
 * measure's column name. compile.ts (one SELECT) and compile-per-entity.ts (a figure per entity,
 * then aggregated) import them from here, so neither compiler depends on the other's file.
 */
import { singular } from '../catalog/profile.js';
import { literal, qualified, quoteIdent } from '../sql/sql-text.js';
import type { ColRef, Filter, Group, Measure } from './plan.js';
import { Decline } from './resolve-context.js';

const TIME_SQL: Record<string, (c: string) => string> = {
  day: (c) => `CAST(${c} AS DATE)`,
  week: (c) => `CAST(date_trunc('week', ${c}) AS DATE)`,
  month: (c) => `strftime(${c}, '%Y-%m')`,
  quarter: (c) => `strftime(${c}, '%Y') || '-Q' || quarter(${c})`,
  year: (c) => `year(${c})`,
  dow: (c) => `dayname(${c})`,
};

/** A date column cut to a time unit (`day` → its date, `month` → `2024-03`). */
export const bucketSql = (unit: string, column: string): string => TIME_SQL[unit]!(column);

export function measureAlias(m: Measure, base: string): string {
  if (m.bucket) return `${m.bucket}s_count`;
  if (m.pct) return 'pct';
  if (m.formula) return m.formula.name.replace(/[^\p{L}\p{N}]+/gu, '_');
  if (m.per) return `${m.fn}_${singular(m.per.table)}_${m.per.inner === 'sum' && m.column ? m.column.column : `${m.per.child}_count`}`;
  if (!m.column) return m.fn === 'count' ? `${base}_count` : m.fn;
  const c = m.column.column;
  return { count: `${c}_count`, count_distinct: `distinct_${c}`, sum: `total_${c}`, avg: `avg_${c}`, min: `min_${c}`, max: `max_${c}`, median: `median_${c}` }[m.fn];
}

/** A year column stands for its year; finer units are not in it. */
function yearColumn(c: ColRef, unit: string): string {
  if (unit !== 'year') throw new Decline(`${c.table}.${c.column} holds years only, not ${unit}s`);
  return qualified(c.table, c.column);
}

export function groupSql(g: Group): Array<{ expr: string; alias: string }> {
  switch (g.kind) {
    case 'column':
      return [{ expr: qualified(g.column.table, g.column.column), alias: g.column.column }];
    case 'time':
      return [{ expr: g.column.year ? yearColumn(g.column, g.unit) : TIME_SQL[g.unit]!(qualified(g.column.table, g.column.column)), alias: g.unit }];
    case 'entity':
      return [{ expr: qualified(g.table, g.key), alias: g.key }, ...(g.label ? [{ expr: qualified(g.table, g.label), alias: singular(g.table) }] : [])];
  }
}

export function filterSql(f: Filter): string {
  switch (f.kind) {
    case 'compare':
      return `${qualified(f.column.table, f.column.column)} ${f.op} ${literal(f.value)}`;
    case 'in':
      return `${qualified(f.column.table, f.column.column)} ${f.negate ? 'NOT IN' : 'IN'} (${f.values.map(literal).join(', ')})`;
    case 'between':
      return `${qualified(f.column.table, f.column.column)} BETWEEN ${literal(f.low)} AND ${literal(f.high)}`;
    case 'date_range': {
      const c = qualified(f.column.table, f.column.column);
      if (f.column.year) {
        // a bound inside a year starts from the next whole year: after 1945-06-30 is from 1946
        const year = (iso: string) => Number(iso.slice(0, 4)) + (iso.slice(5) === '01-01' ? 0 : 1);
        return [f.from ? `${c} >= ${year(f.from)}` : '', f.to ? `${c} < ${year(f.to)}` : ''].filter(Boolean).join(' AND ');
      }
      return [f.from ? `${c} >= DATE ${literal(f.from)}` : '', f.to ? `${c} < DATE ${literal(f.to)}` : ''].filter(Boolean).join(' AND ');
    }
    case 'month_of_year':
      if (f.column.year) yearColumn(f.column, 'month');
      return `month(${qualified(f.column.table, f.column.column)}) = ${f.month}`;
    case 'child_count': {
      const more = (f.where ?? []).map((w) => ` AND ${filterSql(w)}`).join('');
      return `(SELECT count(*) FROM ${quoteIdent(f.child)} WHERE ${qualified(f.child, f.fk)} = ${qualified(f.table, f.key)}${more}) ${f.op} ${f.value}`;
    }
    case 'not_null':
      return `${qualified(f.column.table, f.column.column)} IS NOT NULL`;
    case 'day_of_week':
      if (f.column.year) yearColumn(f.column, 'day');
      return `dayofweek(${qualified(f.column.table, f.column.column)}) IN (${f.days.join(', ')})`;
  }
}
