/**
 * A plan as one DuckDB SELECT, and as one line of English saying how the question was read.
 * Everything the plan names is quoted; values are literals, never spliced text.
 */
import { qualified, quoteIdent } from '../sql/sql-text.js';
import { joinsFor } from './joins.js';
import type { Measure, Plan } from './plan.js';
import { perEntitySql } from './compile-per-entity.js';
import { bucketSql, filterSql, groupSql, measureAlias } from './sql-fragments.js';
import { Decline, tablesOfPlan } from './resolve.js';
import type { Vocabulary } from './vocabulary.js';
import { readPlan } from './reading.js';

export interface Compiled {
  sql: string;
  interpretation: string;
}

function measureSql(m: Measure, base: string, fanout: boolean, vocab: Vocabulary): string {
  if (m.pct) {
    const { pct, ...plain } = m;
    const e = measureSql(plain, base, fanout, vocab);
    return `round(100.0 * ${e} FILTER (WHERE ${pct.map(filterSql).join(' AND ')}) / ${e}, 2)`;
  }
  if (m.formula) {
    if (fanout) throw new Decline(`this join would repeat rows, so the measure "${m.formula.name}" would be wrong`);
    return `(${m.formula.sql})`;
  }
  if (!m.column) {
    if (!fanout) return 'count(*)';
    const key = vocab.tables.get(base)?.key?.[0];
    if (!key) throw new Decline(`counting ${base} across this join would count rows more than once, and ${base} has no key column`);
    return `count(DISTINCT ${qualified(base, key)})`;
  }
  const c = qualified(m.column.table, m.column.column);
  if (fanout && (m.fn === 'sum' || m.fn === 'avg' || m.fn === 'median' || m.fn === 'count')) {
    throw new Decline(`this join would repeat ${m.column.table} rows, so a ${m.fn} of ${m.column.column} would be wrong`);
  }
  switch (m.fn) {
    case 'count':
      return `count(${c})`;
    case 'count_distinct':
      return `count(DISTINCT ${m.bucket && !m.column.year ? bucketSql(m.bucket, c) : c})`;
    default:
      return `${m.fn}(${c})`;
  }
}

export function compilePlan(plan: Plan, vocab: Vocabulary, maxRows: number): Compiled {
  const joins = joinsFor(plan.base, tablesOfPlan(plan), vocab.relations);
  if (!joins) throw new Decline(`I do not see how to connect the tables this question needs`);
  const from = [quoteIdent(plan.base), ...joins.steps.map((s) => `JOIN ${quoteIdent(s.table)} ON ${qualified(s.on.left.table, s.on.left.column)} = ${qualified(s.on.right.table, s.on.right.column)}`)].join('\n  ');
  const where = plan.filters.map(filterSql);
  const whereSql = where.length ? `\nWHERE ${where.join('\n  AND ')}` : '';
  const parts: string[] = [];

  if (plan.shape === 'aggregate' && plan.measures[0]?.per) {
    parts.push(perEntitySql(plan, vocab));
  } else if (plan.shape === 'aggregate') {
    // "by independence year" on a column of years: the column and its year are one grouping
    const groups = plan.groups.flatMap(groupSql).filter((g, i, all) => all.findIndex((x) => x.expr === g.expr) === i);
    const measures = plan.measures.map((m) => ({ expr: measureSql(m, plan.base, joins.fanout, vocab), alias: measureAlias(m, plan.base) }));
    const select = [...groups, ...measures].map((x) => `${x.expr} AS ${quoteIdent(x.alias)}`);
    if (plan.share && measures.length) select.push(`round(100.0 * ${measures[0]!.expr} / sum(${measures[0]!.expr}) OVER (), 2) AS "share_pct"`);
    parts.push(`SELECT ${select.join(',\n       ')}\nFROM ${from}${whereSql}`);
    if (groups.length) parts.push(`GROUP BY ${groups.map((_, i) => i + 1).join(', ')}`);
    const order: string[] = [];
    if (plan.order?.by === 'measure' && measures.length) order.push(`${quoteIdent(measures[0]!.alias)} ${plan.order.dir.toUpperCase()}`);
    if (groups.length) order.push(...groups.map((g) => `${quoteIdent(g.alias)} ${plan.order?.by === 'group' ? plan.order.dir.toUpperCase() : 'ASC'}`));
    if (order.length) parts.push(`ORDER BY ${order.join(', ')}`);
  } else if (plan.shape === 'distinct') {
    const cols = plan.columns.map((c) => `${qualified(c.table, c.column)} AS ${quoteIdent(c.column)}`);
    parts.push(`SELECT DISTINCT ${cols.join(', ')}\nFROM ${from}${whereSql}`);
    parts.push(`ORDER BY ${plan.columns.map((_, i) => i + 1).join(', ')}`);
  } else {
    const cols = plan.columns.length ? plan.columns.map((c) => `${qualified(c.table, c.column)} AS ${quoteIdent(c.column)}`) : [`${quoteIdent(plan.base)}.*`];
    parts.push(`SELECT ${joins.fanout ? 'DISTINCT ' : ''}${cols.join(', ')}\nFROM ${from}${whereSql}`);
    const key = vocab.tables.get(plan.base)?.key?.[0];
    const order: string[] = [];
    if (plan.order && typeof plan.order.by === 'object') order.push(`${qualified(plan.order.by.table, plan.order.by.column)} ${plan.order.dir.toUpperCase()}`);
    if (key) order.push(qualified(plan.base, key));
    // a table without a key still lists its rows in one fixed order
    if (order.length) parts.push(`ORDER BY ${order.join(', ')}`);
    else if (!plan.columns.length) parts.push('ORDER BY ALL');
  }
  const limit = Math.min(plan.limit ?? maxRows, maxRows);
  if (plan.limit !== undefined || plan.shape !== 'aggregate') parts.push(`LIMIT ${limit}`);
  return { sql: parts.join('\n'), interpretation: readPlan(plan) };
}
