/**
 * A plan in one line of English — the answer's "Read as:" line, so a reader sees at once how the
 * question was understood ("total order_lines.amount by month of orders.order_date, where
 * orders.order_date in 2024, highest first") and can tell a wrong reading from a wrong number.
 */
import { singular } from '../catalog/profile.js';
import type { Filter, Measure, Plan } from './plan.js';

const FN_WORD: Record<string, string> = { count: 'number of', count_distinct: 'number of distinct', sum: 'total', avg: 'average', median: 'median', min: 'smallest', max: 'largest' };

export function readMeasure(m: Measure, base: string): string {
  let out: string;
  if (m.per) {
    const entity = singular(m.per.table);
    out = m.per.inner === 'sum' ? `${FN_WORD[m.fn]} ${entity} value (sum of ${m.column!.table}.${m.column!.column} per ${entity})` : `${FN_WORD[m.fn]} number of ${m.per.child} per ${entity}`;
  } else if (m.formula) out = `${m.formula.name} (a named measure)`;
  else if (!m.column) out = `number of ${base}`;
  else if (m.bucket) out = `number of ${m.bucket}s (of ${m.column.table}.${m.column.column})`;
  else out = `${FN_WORD[m.fn]} ${m.column.table}.${m.column.column}`;
  if (m.pct) out = `percentage of ${out} where ${m.pct.map(describeFilter).join(' and ')}`;
  return out;
}

export function readPlan(plan: Plan): string {
  const out: string[] = [];
  const measures = plan.measures.map((m) => readMeasure(m, plan.base)).join(', ');
  if (plan.shape === 'aggregate') {
    out.push(measures);
    if (plan.groups.length) {
      out.push(
        `by ${plan.groups.map((g) => (g.kind === 'entity' ? singular(g.table) : g.kind === 'time' ? `${g.unit === 'dow' ? 'day of the week' : g.unit} of ${g.column.table}.${g.column.column}` : `${g.column.table}.${g.column.column}`)).join(' and ')}`,
      );
    }
  } else if (plan.shape === 'distinct') out.push(`distinct ${plan.columns.map((c) => `${c.table}.${c.column}`).join(', ')}`);
  else out.push(`rows of ${plan.base}`);
  if (plan.filters.length) out.push(`where ${plan.filters.map(describeFilter).join(' and ')}`);
  if (plan.order && plan.limit !== undefined) {
    const by = plan.order.by === 'measure' ? measures : plan.order.by === 'group' ? 'the group' : `${plan.order.by.table}.${plan.order.by.column}`;
    const dir = plan.order.dir === 'desc' ? 'highest' : 'lowest';
    out.push(plan.limit === 1 ? `only the ${dir} by ${by}` : `${plan.order.dir === 'desc' ? 'top' : 'bottom'} ${plan.limit} by ${by}`);
  } else if (plan.order?.by === 'measure' && plan.groups.length) out.push(`${plan.order.dir === 'desc' ? 'highest' : 'lowest'} first`);
  if (plan.share) out.push("with each group's share of the total");
  return out.join(', ');
}

export function describeFilter(f: Filter): string {
  const c = (x: { table: string; column: string }) => `${x.table}.${x.column}`;
  switch (f.kind) {
    case 'compare':
      return `${c(f.column)} ${f.op} ${JSON.stringify(f.value)}`;
    case 'in':
      return `${c(f.column)} ${f.negate ? 'not in' : 'in'} (${f.values.map((v) => JSON.stringify(v)).join(', ')})`;
    case 'between':
      return `${c(f.column)} between ${f.low} and ${f.high}`;
    case 'date_range':
      return `${c(f.column)} ${f.label.match(/^(before|after|since|until)/) ? f.label : `in ${f.label}`}`;
    case 'month_of_year':
      return `month of ${c(f.column)} = ${f.month}`;
    case 'child_count':
      return f.op === '=' && f.value === 0 ? `${f.table} with no ${f.child}${f.where?.length ? ` where ${f.where.map(describeFilter).join(' and ')}` : ''}` : `${f.table} with ${f.op} ${f.value} ${f.child}`;
    case 'not_null':
      return `${c(f.column)} is set`;
    case 'day_of_week':
      return `${f.column.table}.${f.column.column} on ${f.days.map((d) => ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'][d]).join(' or ')}`;
  }
}
