/**
 * What resolving a draft shares: the context (schema words, the tables the question names, the
 * base table and what it reaches), picking one meaning per word (or asking when two tie), the
 * date column of an event, and the tables a plan reads.
 */
import { isNumericType } from '../catalog/profile.js';
import type { Draft, Target } from './draft.js';
import { reachable, type Reach } from './joins.js';
import type { Choice, ColRef, Plan } from './plan.js';
import type { ColumnRef, Meaning, Vocabulary } from './vocabulary.js';

export class Ambiguity extends Error {
  constructor(
    readonly term: string,
    readonly choices: Choice[],
    /** the question to ask, when "Which <term> do you mean?" does not fit */
    readonly question?: string,
  ) {
    super(`ambiguous: ${term}`);
  }
}
export class Decline extends Error {}

export const LIST_LIMIT = 100;
export const TOP_DEFAULT = 10;
export const AVERAGED = /(price|rate|pct|percent|ratio|discount|score|age|margin|satisf|rating|minutes|duration|days)/i;

export interface Ctx {
  vocab: Vocabulary;
  /** tables named by verbs ("ordered", "sold"): where the event's date lives */
  hinted: Set<string>;
  resolutions: Readonly<Record<string, string>>;
  /** tables the question names (subjects, verb hints, the measure's) */
  mentioned: Set<string>;
  base?: string;
  reach?: Map<string, Reach>;
  usedSubjects: Set<Target>;
}

export const colRef = (r: ColumnRef): ColRef => ({ table: r.table, column: r.column, ...(r.role === 'date' && isNumericType(r.type) ? { year: true as const } : {}) });
export const tableChoice = (t: string): Choice => ({ id: t, label: `${t} (table)` });
export const columnChoice = (r: ColumnRef): Choice => ({ id: `${r.table}.${r.column}`, label: `${r.table}.${r.column}` });

/** The best of several candidates by a score tuple; equal best scores are an ambiguity. */
export function best<T>(term: string, items: T[], score: (t: T) => number[], choice: (t: T) => Choice, ctx: Ctx): T | undefined {
  if (items.length === 0) return undefined;
  const chosen = ctx.resolutions[term.toLowerCase()];
  if (chosen) {
    const hit = items.find((i) => choice(i).id === chosen);
    if (hit) return hit;
  }
  const scored = items.map((i) => ({ i, s: score(i) })).sort((a, b) => cmp(b.s, a.s));
  if (scored.length > 1 && cmp(scored[0]!.s, scored[1]!.s) === 0) {
    const top = scored.filter((x) => cmp(x.s, scored[0]!.s) === 0).map((x) => choice(x.i));
    throw new Ambiguity(term, dedupe(top));
  }
  return scored[0]!.i;
}
export const cmp = (a: number[], b: number[]): number => {
  for (let k = 0; k < Math.max(a.length, b.length); k++) if ((a[k] ?? 0) !== (b[k] ?? 0)) return (a[k] ?? 0) - (b[k] ?? 0);
  return 0;
};
export const dedupe = (cs: Choice[]): Choice[] => cs.filter((c, i) => cs.findIndex((d) => d.id === c.id) === i);

/**
 * How well a table fits the question: named in it, then reachable without repeating rows. Distance
 * does not count: "revenue by name" is ambiguous even if products are closer than customers.
 */
export function proximity(ctx: Ctx, table: string): number[] {
  const r = ctx.reach?.get(table);
  if (ctx.reach && !r) return [-1000];
  return [ctx.mentioned.has(table) ? 1 : 0, r?.fanout ? 0 : 1];
}

export function columnsOf(t: Target, accept: (r: ColumnRef) => boolean): Array<{ ref: ColumnRef; strength: number }> {
  return t.meanings.flatMap((m) => (m.kind === 'column' && accept(m.ref) ? [{ ref: m.ref, strength: m.strength }] : []));
}
export function tablesOf(t: Target): Array<{ table: string; strength: number }> {
  return t.meanings.flatMap((m) => (m.kind === 'table' ? [{ table: m.table, strength: m.strength }] : []));
}

/**
 * The same key column of tables of facts joined one to one (`country` of population and of
 * continent) is one column: the base table's, else a table the question names, else the first.
 */
function oneColumn(cands: Array<{ ref: ColumnRef; strength: number }>, ctx: Ctx): Array<{ ref: ColumnRef; strength: number }> {
  if (cands.length < 2) return cands;
  const name = cands[0]!.ref.column;
  if (!cands.every((c) => c.ref.column === name && c.strength === cands[0]!.strength)) return cands;
  const tables = cands.map((c) => c.ref.table);
  const linked = tables.every((a) =>
    tables.every((b) => a === b || ctx.vocab.relations.some((r) => r.oneToOne && r.from.column === name && ((r.from.table === a && r.to.table === b) || (r.from.table === b && r.to.table === a)))),
  );
  if (!linked) return cands;
  const pick = cands.find((c) => c.ref.table === ctx.base) ?? cands.find((c) => ctx.mentioned.has(c.ref.table)) ?? cands[0]!;
  return [pick];
}

export function pickColumn(t: Target, accept: (r: ColumnRef) => boolean, ctx: Ctx): ColumnRef | undefined {
  const cands = oneColumn(columnsOf(t, accept), ctx);
  // a whole name or a synonym ("units" → quantity) before a part of a name (unit_price)
  return best(
    t.text,
    cands,
    (c) => [c.strength >= 2 ? 1 : 0, ...proximity(ctx, c.ref.table), c.strength],
    (c) => columnChoice(c.ref),
    ctx,
  )?.ref;
}
export function pickTable(t: Target, ctx: Ctx): string | undefined {
  return best(
    t.text,
    tablesOf(t),
    (c) => [c.strength, ...proximity(ctx, c.table)],
    (c) => tableChoice(c.table),
    ctx,
  )?.table;
}

export const numeric = (r: ColumnRef) => isNumericType(r.type) && r.role !== 'key' && r.role !== 'reference';
export const dateCol = (r: ColumnRef) => r.role === 'date';

export function setBase(ctx: Ctx, base: string): void {
  ctx.base = base;
  ctx.reach = reachable(base, ctx.vocab.relations);
}

export function dateOf(table: string, ctx: Ctx, d: Draft, term = 'date'): ColumnRef {
  // a date column the question names wins ("signed up", "order date")
  for (const s of d.subjects) {
    const cols = columnsOf(s, dateCol);
    if (cols.length && !tablesOf(s).length) {
      ctx.usedSubjects.add(s);
      return pickColumn(s, dateCol, ctx)!;
    }
  }
  const reach = ctx.reach ?? reachable(table, ctx.vocab.relations);
  const cands: ColumnRef[] = [];
  for (const c of ctx.vocab.columns.values()) if (c.role === 'date' && reach.has(c.table)) cands.push(c);
  // The date nearest the base: an order's revenue happened on the order's date, not on the
  // customer's signup date, unless a verb ("signed up", "ordered") says which event is meant.
  // a table's own event date (opened, created, ordered) before its later ones (resolved, closed)
  const later = (c: ColumnRef) => (/(resolv|clos|end|updat|ship|deliver|due|modif|cancel|finish|complet)/i.test(c.column) ? 0 : 1);
  // the semantic layer's default time column, then a real date before a column of years
  const chosen = best(
    term,
    cands,
    (c) => [ctx.vocab.timeColumns.has(`${c.table}.${c.column}`) ? 1 : 0, isNumericType(c.type) ? 0 : 1, ctx.hinted.has(c.table) ? 1 : 0, reach.get(c.table)!.fanout ? 0 : 1, -reach.get(c.table)!.hops, later(c)],
    columnChoice,
    ctx,
  );
  if (!chosen) throw new Decline(`no table reachable from ${table} has a date column`);
  return chosen;
}

/** Every table the plan reads besides the ones child_count filters query on their own. */
export function tablesOfPlan(plan: Plan): Set<string> {
  const out = new Set([plan.base]);
  for (const m of plan.measures) {
    if (m.column) out.add(m.column.table);
    for (const f of m.pct ?? []) if (f.kind !== 'child_count') out.add(f.column.table);
    if (m.per && m.per.inner === 'sum') out.add(m.per.table);
  }
  for (const g of plan.groups) out.add(g.kind === 'entity' ? g.table : g.column.table);
  for (const f of plan.filters) if (f.kind !== 'child_count') out.add(f.column.table);
  for (const c of plan.columns) out.add(c.table);
  if (plan.order && typeof plan.order.by === 'object') out.add(plan.order.by.table);
  return out;
}

/** The table a value names; asked when it lives in several ("Germany" in seven tables of facts). */
export function valueOwner(d: Draft, ctx: Ctx): Extract<Meaning, { kind: 'value' }> | undefined {
  const values = d.values[0]?.target.meanings.flatMap((m) => (m.kind === 'value' ? [m] : [])) ?? [];
  const tables = [...new Set(values.map((v) => v.ref.table))];
  const table = best(d.values[0]?.target.text ?? '', tables, (t) => [...proximity(ctx, t), Math.max(...values.filter((v) => v.ref.table === t).map((v) => v.strength))], tableChoice, ctx);
  return values.find((v) => v.ref.table === table);
}
