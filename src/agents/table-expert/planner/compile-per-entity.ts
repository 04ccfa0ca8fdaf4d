/**
 * Measures of a derived figure: an order's value (the sum of its lines), a customer's number of
 * orders. The figure is computed once per entity row in an inner query, then averaged (or its
 * median, minimum, maximum taken) per group outside. Groups must hold one value per entity
 * (an order's channel, its customer's segment); a product category varies within an order, so
 * such a split is declined rather than counted twice.
 */
import { singular } from '../catalog/profile.js';
import { qualified, quoteIdent } from '../sql/sql-text.js';
import { filterSql, groupSql, measureAlias } from './sql-fragments.js';
import { joinsFor, reachable } from './joins.js';
import type { Plan } from './plan.js';
import { Decline, tablesOfPlan } from './resolve.js';
import type { Vocabulary } from './vocabulary.js';

export function perEntitySql(plan: Plan, vocab: Vocabulary): string {
  const m = plan.measures[0]!;
  const per = m.per!;
  const entity = singular(per.table);
  const reach = reachable(per.table, vocab.relations);
  const groupTables = plan.groups.map((g) => (g.kind === 'entity' ? g.table : g.column.table));
  const filterTables = plan.filters.flatMap((f) => (f.kind === 'child_count' ? [] : [f.column.table]));
  for (const t of [...groupTables, ...filterTables]) {
    if (t === per.child || (per.inner === 'sum' && t === plan.base)) {
      if (groupTables.includes(t)) throw new Decline(`${t} can differ within one ${entity}, so a per-${entity} figure cannot be split by it`);
      continue;
    }
    const r = reach.get(t);
    if (!r || r.fanout) throw new Decline(`${t} can differ within one ${entity}, so a per-${entity} figure cannot be split by it`);
  }
  const groups = plan.groups.flatMap(groupSql);
  let from: string;
  let where = plan.filters;
  let figure: string;
  if (per.inner === 'sum') {
    const joins = joinsFor(plan.base, new Set([...tablesOfPlan(plan), per.table]), vocab.relations);
    if (!joins || joins.fanout) throw new Decline(`I do not see how to add up ${plan.base} per ${entity}`);
    from = [quoteIdent(plan.base), ...joins.steps.map((s) => `JOIN ${quoteIdent(s.table)} ON ${qualified(s.on.left.table, s.on.left.column)} = ${qualified(s.on.right.table, s.on.right.column)}`)].join('\n    ');
    figure = `sum(${qualified(m.column!.table, m.column!.column)})`;
  } else {
    // the entity LEFT JOIN its child: an entity with none counts as 0
    const own = [...tablesOfPlan(plan)].filter((t) => t !== per.child);
    const joins = joinsFor(per.table, own, vocab.relations);
    if (!joins || joins.fanout) throw new Decline(`I do not see how to count ${per.child} per ${entity}`);
    const onChild = where.filter((f) => f.kind !== 'child_count' && f.column.table === per.child);
    where = where.filter((f) => !onChild.includes(f));
    from = [
      quoteIdent(per.table),
      ...joins.steps.map((s) => `JOIN ${quoteIdent(s.table)} ON ${qualified(s.on.left.table, s.on.left.column)} = ${qualified(s.on.right.table, s.on.right.column)}`),
      `LEFT JOIN ${quoteIdent(per.child!)} ON ${qualified(per.child!, per.fk!)} = ${qualified(per.table, per.key)}${onChild.map((f) => ` AND ${filterSql(f)}`).join('')}`,
    ].join('\n    ');
    figure = `count(${qualified(per.child!, per.fk!)})`;
  }
  const inner = [
    `SELECT ${[`${qualified(per.table, per.key)} AS "entity_key"`, ...groups.map((g) => `${g.expr} AS ${quoteIdent(g.alias)}`), `${figure} AS "per_value"`].join(', ')}`,
    `  FROM ${from}`,
    ...(where.length ? [`  WHERE ${where.map(filterSql).join(' AND ')}`] : []),
    `  GROUP BY ${[1, ...groups.map((_, i) => i + 2)].join(', ')}`,
  ].join('\n');
  const alias = quoteIdent(measureAlias(m, plan.base));
  const outer = [`SELECT ${[...groups.map((g) => quoteIdent(g.alias)), `${m.fn}("per_value") AS ${alias}`].join(', ')}`, `FROM (\n  ${inner}\n) AS per_entity`];
  if (groups.length) outer.push(`GROUP BY ${groups.map((_, i) => i + 1).join(', ')}`);
  const order: string[] = [];
  if (plan.order?.by === 'measure') order.push(`${alias} ${plan.order.dir.toUpperCase()}`);
  order.push(...groups.map((g) => `${quoteIdent(g.alias)} ${plan.order?.by === 'group' ? plan.order.dir.toUpperCase() : 'ASC'}`));
  if (groups.length) outer.push(`ORDER BY ${order.join(', ')}`);
  return outer.join('\n');
}
