/**
 * Row answers (a key lookup, a filtered list, the most expensive products, the rows inside an
 * order) and per-entity figures ("average number of orders per customer").
 */
import { isNumericType, type TableProfile } from '../catalog/profile.js';
import type { Draft } from './draft.js';
import { reachable } from './joins.js';
import type { Filter, Group, Plan } from './plan.js';
import { colRef, columnsOf, Decline, pickColumn, pickTable, setBase, tablesOf, valueOwner, type Ctx } from './resolve-context.js';
import { labelColumn } from './vocabulary.js';

const LIST_LIMIT = 100;
const TOP_DEFAULT = 10;
const NOT_ADDITIVE = /(price|rate|pct|percent|ratio|discount|score|age|margin|satisf|rating|minutes|duration|days|time)/i;

export function rowsPlan(d: Draft, ctx: Ctx): Plan {
  let base: string | undefined;
  const filters: Filter[] = [];
  if (d.keyLookup) {
    const t = d.keyLookup.target;
    const table = tablesOf(t).length ? pickTable(t, ctx)! : pickColumn(t, () => true, ctx)!.table;
    const key = ctx.vocab.tables.get(table)!.key?.[0];
    if (!key) throw new Decline(`${table} has no key column to look a row up by`);
    base = table;
    // "what did customer 5 buy": the rows of what they bought, not the customer's own row
    if (!d.keyLookup.contents && d.hints.some((h) => h !== table))
      throw new Decline(`I can show ${table} ${d.keyLookup.value} itself, or count or add up what it has ("number of orders of customer ${d.keyLookup.value}"), but not list related rows by a verb`);
    const inside = d.keyLookup.contents ? ctx.vocab.relations.filter((r) => r.to.table === table) : [];
    if (d.keyLookup.contents && inside.length !== 1) throw new Decline(`what is "in" ${table} ${d.keyLookup.value}? Ask for its row ("${table} ${d.keyLookup.value}") or for the rows pointing at it by name`);
    if (inside.length === 1) base = inside[0]!.from.table;
    filters.push({ kind: 'compare', column: inside.length === 1 ? { table: base, column: inside[0]!.from.column } : { table, column: key }, op: '=', value: d.keyLookup.value });
  }
  const tableSubject = d.subjects.find((s) => tablesOf(s).length);
  const columnSubjects = d.subjects.filter((s) => !tablesOf(s).length && columnsOf(s, () => true).length);
  if (!base && tableSubject) {
    base = pickTable(tableSubject, ctx)!;
    ctx.usedSubjects.add(tableSubject);
  }
  if (!base && columnSubjects.length) base = pickColumn(columnSubjects[0]!, () => true, ctx)!.table;
  if (!base) {
    const v = valueOwner(d, ctx);
    if (v?.kind === 'value') base = v.ref.table;
  }
  if (!base) throw new Decline('I could not tell which table to list');
  ctx.mentioned.add(base);
  setBase(ctx, base);
  const refs = columnSubjects.map((s) => {
    ctx.usedSubjects.add(s);
    return pickColumn(s, () => true, ctx)!;
  });
  // "revenue of the most expensive product": a measure of many rows is a figure, not a column of a list
  const spread = refs.find((r) => ctx.reach?.get(r.table)?.fanout);
  if (spread && (d.superlative || spread.role === 'measure'))
    throw new Decline(`${spread.table}.${spread.column} has many values per ${base} row; ask for a figure of it ("total ${spread.column} by …") or for the rows one step at a time`);
  const columns = refs.map(colRef);
  const categorical = refs.length > 0 && refs.every((r) => r.role === 'category');
  const distinct = columns.length > 0 && !d.superlative && !d.keyLookup && (d.distinct || !tableSubject || categorical);
  const plan: Plan = { shape: distinct ? 'distinct' : 'rows', base, measures: [], groups: [], filters, columns };
  if (plan.shape === 'distinct') plan.order = { by: 'group', dir: 'asc' };
  if (d.superlative) {
    const p = ctx.vocab.tables.get(base)!;
    const col = d.superlative.kind === 'date' ? p.columns.find((c) => /^(DATE|TIMESTAMP)/.test(c.type)) : pricey(p);
    if (!col) throw new Decline(`${base} has no ${d.superlative.kind === 'date' ? 'date' : 'price'} column to sort by`);
    plan.order = { by: { table: base, column: col.name }, dir: d.superlative.dir };
    // "who signed up first": show whose row it is, not only the date
    if (plan.columns.length) {
      const ids = [...(p.key ?? []), labelColumn(p)].filter((c): c is string => !!c && !plan.columns.some((x) => x.column === c));
      plan.columns.unshift(...ids.map((column) => ({ table: base, column })));
    }
    const plural = tableSubject?.plural ?? false;
    plan.limit = d.superlative.n ?? d.top?.n ?? (plural ? TOP_DEFAULT : 1);
  } else if (plan.shape === 'rows') {
    plan.limit = d.top?.n ?? LIST_LIMIT;
    // "the countries whose capital is Kingston": say which rows they are, not only the capital
    if (plan.columns.length && tableSubject) {
      const p = ctx.vocab.tables.get(base)!;
      const ids = [...(p.key ?? []), labelColumn(p)].filter((c): c is string => !!c && !plan.columns.some((x) => x.column === c));
      plan.columns.unshift(...ids.map((column) => ({ table: base, column })));
    }
  }
  return plan;
}

function pricey(p: TableProfile): { name: string } | undefined {
  return p.columns.find((c) => /price/i.test(c.name) && isNumericType(c.type)) ?? p.columns.find((c) => /(cost|amount|total)/i.test(c.name) && isNumericType(c.type));
}

/**
 * Per-entity figures: "average number of orders per customer" counts each customer's orders, then
 * averages; "average amount per order" adds each order's lines up, then averages. The entity is the
 * group named with "per"/"each" (or the table the count's rows point at), and it leaves the groups.
 */
export function settlePerEntity(plan: Plan, d: Draft, ctx: Ctx): void {
  const m = plan.measures[0]!;
  const parentOf = (child: string, g: Group) => g.kind === 'entity' && ctx.vocab.relations.some((r) => r.from.table === child && r.to.table === g.table);
  if (m.per?.inner === 'count') {
    const child = m.per.child!;
    const at = plan.groups.findIndex((g) => parentOf(child, g));
    if (at < 0) throw new Decline(`an average number of ${child} per what? e.g. "average number of ${child} per ${ctx.vocab.relations.find((r) => r.from.table === child)?.to.table ?? 'entity'}"`);
    const g = plan.groups[at]! as Extract<Group, { kind: 'entity' }>;
    const r = ctx.vocab.relations.find((x) => x.from.table === child && x.to.table === g.table)!;
    plan.groups.splice(at, 1);
    m.per = { table: g.table, key: r.to.column, inner: 'count', child, fk: r.from.column };
    plan.base = g.table;
    return;
  }
  // only amounts add up per entity; an average satisfaction or price per agent stays a plain average
  if (m.per || !m.column || !(m.fn === 'avg' || m.fn === 'median') || !d.perWord || NOT_ADDITIVE.test(m.column.column)) return;
  // "average amount per order": the group is the parent entity of the measured rows
  const at = plan.groups.findIndex(
    (g) =>
      g.kind === 'entity' &&
      g.table !== m.column!.table &&
      (() => {
        // the entity holds the measured rows: reachable from them without repeating any
        const r = reachable(m.column!.table, ctx.vocab.relations).get(g.table);
        return !!r && !r.fanout;
      })(),
  );
  if (at < 0) return;
  const g = plan.groups[at]! as Extract<Group, { kind: 'entity' }>;
  plan.groups.splice(at, 1);
  m.per = { table: g.table, key: g.key, inner: 'sum' };
}
