/**
 * The parts of resolving that keep the planner honest and reach past plain group-bys:
 * - a ranking with no measure ("which country buys the most?") asks by what, with the choices;
 * - comparisons ("2023 vs 2024", "online vs store") become the two things side by side;
 * - "never"/"without" become rows with no related rows (an anti-join);
 * - shares and rates of the rows meeting a filter become one percentage per group;
 * - a plan that does not cover what the question asked is declined, never answered.
 */
import type { Draft, Target } from './draft.js';
import type { ColRef, Filter, Plan } from './plan.js';
import { Ambiguity, Decline } from './resolve-context.js';
import { labelColumn, type ColumnRef, type Meaning, type Vocabulary } from './vocabulary.js';

const AVERAGED_NAME = /(price|rate|pct|percent|ratio|discount|score|age|margin|satisf|rating|minutes|duration|time|days)/i;

const tableTarget = (table: string): Target => ({ text: table, meanings: [{ kind: 'table', table, strength: 3 }], plural: true });
const columnTarget = (ref: ColumnRef): Target => ({ text: `${ref.table}.${ref.column}`, meanings: [{ kind: 'column', ref, strength: 3 }], plural: false });

/** Tables whose rows point at `table`, and theirs in turn: what an entity "has". */
function descendants(table: string, vocab: Vocabulary): string[] {
  const out: string[] = [];
  const queue = [table];
  while (queue.length) {
    const t = queue.shift()!;
    for (const r of vocab.relations)
      if (r.to.table === t && !out.includes(r.from.table) && r.from.table !== table) {
        out.push(r.from.table);
        queue.push(r.from.table);
      }
  }
  return out;
}

const ownerTable = (t: Target): string | undefined => {
  const m = t.meanings.find((x) => x.kind === 'table' || x.kind === 'column');
  return m?.kind === 'table' ? m.table : m?.kind === 'column' ? m.ref.table : undefined;
};

/** "Which country buys the most?": the ranking has no measure; ask which one, or take the only sensible one. */
export function settleRanking(d: Draft, vocab: Vocabulary, resolutions: Readonly<Record<string, string>>): void {
  if (!d.rankMissing || d.rankBy || d.measure?.target) return;
  const ranked = d.groups[d.groups.length - 1];
  const table = ranked?.target ? ownerTable(ranked.target) : undefined;
  const children = table ? descendants(table, vocab) : [];
  const term = `${d.rankMissing.text} (by what)`;
  const chosen = resolutions[term.toLowerCase()];
  if (chosen) {
    const [fn, what] = chosen.split(':');
    const ref = vocab.columns.get(what ?? '');
    d.rankBy = fn === 'count' ? { fn: 'count', target: tableTarget(what!) } : ref ? { fn: 'sum', target: columnTarget(ref) } : undefined;
    if (d.rankBy) return;
  }
  // "the busiest agent": busy with the one kind of row that points at it
  const direct = vocab.relations.filter((r) => r.to.table === table).map((r) => r.from.table);
  if (d.rankMissing.busy && direct.length === 1) {
    d.rankBy = { fn: 'count', target: tableTarget(direct[0]!) };
    return;
  }
  // "the most"/"the fewest" may be a count; "the biggest", "the fastest" is a size or a speed, never a count
  const counts = /^(most|fewest|least)$/i.test(d.rankMissing.text);
  const choices = [
    ...(counts ? children.map((c) => ({ id: `count:${c}`, label: `number of ${c.replace(/_/g, ' ')}` })) : []),
    ...[...vocab.columns.values()]
      .filter((c) => children.includes(c.table) && c.role === 'measure' && !AVERAGED_NAME.test(c.column))
      .map((c) => ({ id: `sum:${c.table}.${c.column}`, label: `total ${c.table}.${c.column}` })),
  ];
  if (choices.length === 0) throw new Decline(`"${d.rankMissing.text}" of what? Name what to rank by, e.g. "… with the most orders" or "… by revenue"`);
  throw new Ambiguity(
    term,
    choices,
    `Ranked by what? For example, ${choices
      .slice(0, 2)
      .map((c) => `"${c.label}"`)
      .join(' or ')}?`,
  );
}

/** "Revenue in 2024 compared with 2023": the two years side by side. */
export function settleCompareYears(d: Draft): void {
  if (!d.compare || d.dates.length < 2) return;
  const years = d.dates.map((x) => (/^\d{4}$/.test(x.label) ? Number(x.label) : NaN)).sort((a, b) => a - b);
  if (years.some((y) => Number.isNaN(y))) throw new Decline('I can compare whole years side by side ("2023 vs 2024"); for other periods, ask for each one');
  if (years[years.length - 1]! - years[0]! !== years.length - 1) throw new Decline('I can compare consecutive years side by side; ask for each year on its own');
  d.dates = [{ from: `${years[0]}-01-01`, to: `${years[years.length - 1]! + 1}-01-01`, label: `${years[0]} to ${years[years.length - 1]}` }];
  if (!d.groups.some((g) => g.time === 'year')) d.groups.push({ time: 'year' });
  d.compare = false;
}

/** "online vs store": the compared values become a group; a comparison with nothing to compare is declined. */
export function settleCompareValues(plan: Plan, d: Draft, valueFilters: Filter[]): void {
  if (!d.compare) return;
  const multi = valueFilters.find((f) => f.kind === 'in' && !f.negate);
  if (multi?.kind !== 'in') throw new Decline('compare what with what? Name both sides, e.g. "online vs store revenue" or "revenue in 2023 vs 2024"');
  if (plan.shape !== 'aggregate') throw new Decline('a comparison needs a figure to compare, e.g. "revenue" or "number of orders"');
  if (!plan.groups.some((g) => g.kind === 'column' && g.column.table === multi.column.table && g.column.column === multi.column.column)) plan.groups.unshift({ kind: 'column', column: multi.column });
  plan.order ??= { by: 'group', dir: 'asc' };
}

/** Shares and rates: "what percentage of orders were cancelled", "cancellation rate by channel". */
export function settleShare(plan: Plan, d: Draft, valueFilters: Filter[], resolutions: Readonly<Record<string, string>>): void {
  if (!d.share && !d.rate) return;
  if (plan.shape !== 'aggregate') throw new Decline('a share needs something to count or add up, e.g. "share of orders that were cancelled"');
  const parts = valueFilters;
  // "share of urgent tickets that are outages": which filter is the whole and which the part is not clear from the words
  const columnsOfParts = new Set(parts.map((f) => (f.kind === 'child_count' ? f.table : `${f.column.table}.${f.column.column}`)));
  if (columnsOfParts.size > 1)
    throw new Decline('a share with two conditions: which is the whole and which the part? Ask with the whole as a filter, e.g. "share of outages among urgent tickets" is "urgent tickets by category, with shares"');
  if (parts.length && plan.groups.length && !d.rate) {
    const term = 'percentage';
    const chosen = resolutions[term];
    if (!chosen) {
      const what = parts.length === 1 && parts[0]!.kind === 'compare' ? String(parts[0]!.value) : 'the filtered rows';
      throw new Ambiguity(
        term,
        [
          { id: 'within', label: `within each group: the share of its rows that are ${what}` },
          { id: 'of_total', label: `of the total: how all ${what} rows split across the groups` },
        ],
        'Which percentage do you mean?',
      );
    }
    if (chosen === 'of_total') {
      plan.share = true;
      return;
    }
  }
  if (parts.length) {
    plan.measures[0] = { ...plan.measures[0]!, pct: parts };
    plan.filters = plan.filters.filter((f) => !parts.includes(f));
    return;
  }
  if (d.rate) throw new Decline('a rate of what? Name the rows it counts, e.g. "cancellation rate" or "share of orders that were returned"');
  if (!plan.groups.length) throw new Decline('a share of what? Name the part, e.g. "share of orders that were cancelled" or "share of revenue by channel"');
  plan.share = true;
}

/** The last check: a plan that does not answer every part of the question is declined. */
export function checkCoverage(plan: Plan, d: Draft): void {
  if (plan.shape !== 'aggregate' && (d.which || d.top || d.share || d.rate || d.compare || d.rankMissing) && !d.superlative) {
    throw new Decline('this asks for a ranking or a figure, and all I could build was a list of rows; name the measure, e.g. "top 5 products by revenue"');
  }
  if ((d.which || d.top) && plan.shape === 'aggregate' && plan.limit === undefined) {
    throw new Decline('I could not tell what to rank by; name it, e.g. "top 5 … by revenue"');
  }
}

/** "How many customers have never placed an order?": rows of one table with no rows in a table that points at it. */
export function neverPlan(d: Draft, vocab: Vocabulary, used: Set<Target>, dateOfTable: (table: string) => ColumnRef, resolutions: Readonly<Record<string, string>>): Plan {
  const named: string[] = [];
  const targets = [d.measure?.target, ...d.subjects].filter((t): t is Target => !!t);
  for (const t of targets) for (const m of t.meanings) if (m.kind === 'table' && !named.includes(m.table)) named.push(m.table);
  const hinted = [...d.hints, ...targets.flatMap((t) => t.meanings.flatMap((m: Meaning) => (m.kind === 'column' ? [m.ref.table] : [])))];
  let pair: { parent: string; child: string; key: string; fk: string } | undefined;
  // the rows counted or listed are the first table named ("tickets without an agent" are tickets)
  for (const parent of named.slice(0, 1)) {
    for (const child of [...named, ...hinted]) {
      const r = vocab.relations.find((x) => x.to.table === parent && x.from.table === child);
      if (r && !pair) pair = { parent, child, key: r.to.column, fk: r.from.column };
    }
  }
  if (!pair) throw new Decline('"never"/"without" — I could not tell which rows should have none of what; e.g. "customers with no orders"');
  for (const t of targets) if (t.meanings.every((m) => (m.kind === 'table' ? [pair.parent, pair.child].includes(m.table) : m.kind === 'column' ? m.ref.table === pair.child : false))) used.add(t);
  const where: Filter[] = [];
  const own: Filter[] = [];
  for (const v of d.values) {
    const m = v.target.meanings.find((x) => x.kind === 'value' && (x.ref.table === pair!.child || x.ref.table === pair!.parent));
    if (m?.kind !== 'value') throw new Decline(`"${v.target.text}" is neither about ${pair.parent} nor ${pair.child}; ask without it, or one step at a time`);
    const f: Filter = { kind: 'compare', column: { table: m.ref.table, column: m.ref.column }, op: v.negate ? '!=' : '=', value: m.value };
    (m.ref.table === pair.child ? where : own).push(f);
  }
  for (const dt of d.dates) {
    const c = dateOfTable(pair.child);
    const col: ColRef = { table: c.table, column: c.column };
    if (c.table !== pair.child) throw new Decline(`${pair.child} has no date of its own to filter by`);
    where.push(
      dt.month !== undefined ? { kind: 'month_of_year', column: col, month: dt.month } : { kind: 'date_range', column: col, ...(dt.from ? { from: dt.from } : {}), ...(dt.to ? { to: dt.to } : {}), label: dt.label },
    );
  }
  if (d.numbers.length || d.childCounts.length || d.groups.length || d.top || d.share) throw new Decline('"never"/"without" questions can be counted or listed, not grouped or ranked; ask for the count or the list');
  const filters: Filter[] = [...own, { kind: 'child_count', table: pair.parent, key: pair.key, child: pair.child, fk: pair.fk, op: '=', value: 0, ...(where.length ? { where } : {}) }];
  // "customers without orders": the number of them, or the list? Asked, as for any bare rows question
  let counted = d.measure?.fn === 'count';
  if (!counted && !d.list && !d.which) {
    const term = `${pair.parent} with no ${pair.child} (number or list)`;
    const chosen = resolutions[term.toLowerCase()];
    if (!chosen)
      throw new Ambiguity(
        term,
        [
          { id: 'count', label: `the number of ${pair.parent}` },
          { id: 'list', label: `the list of ${pair.parent}` },
        ],
        `Do you want the number of ${pair.parent} with no ${pair.child}, or the list?`,
      );
    counted = chosen === 'count';
  }
  if (counted) return { shape: 'aggregate', base: pair.parent, measures: [{ fn: 'count' }], groups: [], filters, columns: [] };
  const p = vocab.tables.get(pair.parent)!;
  const label = labelColumn(p);
  const columns = [...(p.key ?? []), ...(label ? [label] : [])].map((column) => ({ table: pair!.parent, column }));
  return { shape: 'rows', base: pair.parent, measures: [], groups: [], filters, columns, limit: 100 };
}
