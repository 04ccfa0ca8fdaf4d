/**
 * From a draft to a plan: choose the base table, give every schema word one meaning, pick the
 * date column, check that the joins are sound. When two meanings are equally good the planner
 * asks (INPUT_REQUIRED with the choices); when the question does not fit it declines and says why.
 */
import type { Draft, DraftMeasure } from './draft.js';
import type { TimeUnit } from './lexicon.js';
import { joinsFor } from './joins.js';
import type { AggFn, ColRef, Filter, Group, Measure, Plan } from './plan.js';
import { labelColumn, type ColumnRef, type Vocabulary } from './vocabulary.js';
import { checkCoverage, neverPlan, settleCompareValues, settleCompareYears, settleRanking, settleShare } from './resolve-extra.js';
import { Ambiguity, best, colRef, valueOwner, columnChoice, columnsOf, dateCol, dateOf, Decline, numeric, pickColumn, pickTable, proximity, setBase, tablesOf, tablesOfPlan, type Ctx } from './resolve-context.js';
import { rowsPlan, settlePerEntity } from './resolve-rows.js';
import { askAboutUnknown, askToGroupBy, placeChosenGroups } from './near-words.js';

export { Ambiguity, Decline, tablesOfPlan } from './resolve-context.js';

const TOP_DEFAULT = 10;
const AVERAGED = /(price|rate|pct|percent|ratio|discount|score|age|margin|satisf|rating|minutes|duration|days)/i;

function resolveMeasure(m: DraftMeasure, d: Draft, ctx: Ctx): { measure: Measure; base: string } | undefined {
  if (m.periods) return countPeriods(m.periods, d, ctx);
  const fn = m.fn;
  const t = m.target;
  const formula = t?.meanings.find((x) => x.kind === 'formula');
  if (formula?.kind === 'formula') {
    // a named measure is already a figure: "average margin" would be another question
    if (fn && fn !== 'sum') throw new Decline(`"${t!.text}" is a named measure; it cannot be ${describeFn(fn)}d again`);
    return { measure: { fn: 'sum', formula: { name: formula.name, sql: formula.sql } }, base: formula.table };
  }
  const derived = t?.meanings.find((x) => x.kind === 'derived');
  if (t && derived?.kind === 'derived' && fn !== 'count' && fn !== 'count_distinct') {
    // "average order value": each order's lines added up, then averaged
    return { measure: { fn: fn ?? 'avg', column: colRef(derived.column), per: { table: derived.table, key: derived.key, inner: 'sum' } }, base: derived.column.table };
  }
  // "median product price": the table names whose column is meant
  const numericOfTable =
    t && !m.perCount && tablesOf(t).length && !columnsOf(t, numeric).length ? d.subjects.filter((s) => !tablesOf(s).length && columnsOf(s, numeric).some((c) => tablesOf(t).some((x) => x.table === c.ref.table))) : [];
  if (t && fn && fn !== 'count' && fn !== 'count_distinct' && numericOfTable.length === 1) {
    ctx.usedSubjects.add(numericOfTable[0]!);
    for (const x of tablesOf(t)) ctx.mentioned.add(x.table);
    return resolveMeasure({ fn, target: numericOfTable[0]! }, d, ctx);
  }
  if (t && (fn === 'avg' || fn === 'median') && tablesOf(t).length && (m.perCount || !columnsOf(t, numeric).length)) {
    // "average number of orders (per customer)": the entity is settled with the groups
    const child = pickTable(t, ctx)!;
    return { measure: { fn, per: { table: '', key: '', inner: 'count', child, fk: '' } }, base: child };
  }
  if (t) {
    const tables = tablesOf(t);
    const wantsCount = !fn || fn === 'count' || fn === 'sum' || fn === 'count_distinct';
    if (tables.length && wantsCount && (!columnsOf(t, () => true).length || fn === 'count' || !fn)) {
      const table = pickTable(t, ctx)!;
      return { measure: { fn: 'count' }, base: table };
    }
    if (fn === 'count' || fn === 'count_distinct') {
      const ref = pickColumn(t, () => true, ctx);
      if (!ref) throw new Decline(`I cannot count "${t.text}"`);
      // "how many units": a quantity is added up, not its distinct values counted
      if (fn === 'count' && ref.role === 'measure' && !d.distinct) return { measure: { fn: 'sum', column: colRef(ref) }, base: ref.table };
      // "how many customers" over `Customer Name`: the id beside the name tells customers apart
      return { measure: { fn: 'count_distinct', column: { table: ref.table, column: ref.identity ?? ref.column } }, base: ref.table };
    }
    const accept = fn === 'min' || fn === 'max' ? (r: ColumnRef) => numeric(r) || dateCol(r) : numeric;
    const ref = pickColumn(t, accept, ctx);
    if (!ref) throw new Decline(`"${t.text}" is not a number I can ${fn ? describeFn(fn) : 'add up'}`);
    // "the largest order": a table's name is also part of a column name (order_date), which is not what was meant
    if (tables.length && !columnsOf(t, (r) => r === ref).some((c) => c.strength >= 2)) {
      throw new Decline(
        `the ${
          fn
            ? describeFn(fn)
                .replace(/^take the /, '')
                .replace(/ of$/, '')
            : 'figure'
        } ${t.text} by what? Name the column, e.g. "the largest ${t.text} by revenue" or "the latest ${t.text} date"`,
      );
    }
    return { measure: { fn: fn ?? (AVERAGED.test(ref.column) ? 'avg' : 'sum'), column: colRef(ref) }, base: ref.table };
  }
  // No word after the aggregate: look at what else the question names.
  const formulaSubjects = d.subjects.filter((s) => s.meanings.some((x) => x.kind === 'formula'));
  if (fn !== 'count' && formulaSubjects.length === 1) {
    ctx.usedSubjects.add(formulaSubjects[0]!);
    return resolveMeasure({ fn, target: formulaSubjects[0]! }, d, ctx);
  }
  const numericSubjects = d.subjects.filter((s) => columnsOf(s, numeric).length && !tablesOf(s).length && !columnsOf(s, (r) => !numeric(r)).length);
  if (fn !== 'count' && numericSubjects.length === 1) {
    ctx.usedSubjects.add(numericSubjects[0]!);
    return resolveMeasure({ fn, target: numericSubjects[0]! }, d, ctx);
  }
  if (!fn || fn === 'count') {
    const tableSubjects = d.subjects.filter((s) => tablesOf(s).length);
    if (tableSubjects.length >= 1) {
      ctx.usedSubjects.add(tableSubjects[0]!);
      return { measure: { fn: 'count' }, base: pickTable(tableSubjects[0]!, ctx)! };
    }
    const valueTable = valueOwner(d, ctx);
    if ((fn === 'count' || (!fn && (d.groups.length || d.rate || d.share || d.compare))) && valueTable?.kind === 'value') {
      // "how many books were sold": books are a category of products, but what was counted, lines or units?
      if (d.hints.length) throw new Decline(`say what to count, e.g. "number of order lines with ${d.values[0]!.target.text}" or "total quantity of ${d.values[0]!.target.text}"`);
      return { measure: { fn: 'count' }, base: valueTable.ref.table };
    }
  }
  return undefined;
}

/**
 * "How many days had rain in 2014": the days on which the table has (matching) rows, so a daily
 * table counts its rows and an orders table its distinct order days. The table is the one the
 * question's words live in; its date column is the event's.
 */
function countPeriods(unit: TimeUnit, d: Draft, ctx: Ctx): { measure: Measure; base: string } {
  const dated = [...ctx.vocab.tables.keys()].filter((t) => [...ctx.vocab.columns.values()].some((c) => c.table === t && c.role === 'date'));
  const named = dated.filter((t) => ctx.mentioned.has(t));
  const candidates = named.length ? named : dated;
  if (candidates.length !== 1) throw new Decline(`the ${unit}s of which table? Name what happened on them, e.g. "how many ${unit}s had an order"`);
  const base = candidates[0]!;
  setBase(ctx, base);
  const column = colRef(dateOf(base, ctx, d));
  if (column.year && unit !== 'year') throw new Decline(`${column.table}.${column.column} holds years only, not ${unit}s`);
  return { measure: { fn: 'count_distinct', column, bucket: unit }, base };
}

const describeFn = (fn: AggFn): string => ({ count: 'count', count_distinct: 'count', sum: 'add up', avg: 'average', min: 'take the minimum of', max: 'take the maximum of', median: 'take the median of' })[fn];

export function resolve(d: Draft, vocab: Vocabulary, resolutions: Readonly<Record<string, string>>): Plan {
  placeChosenGroups(d, resolutions);
  if (d.unknown.length) {
    askAboutUnknown(d.unknown, vocab);
    throw new Decline(`I do not know what ${d.unknown.map((w) => `"${w}"`).join(', ')} refer${d.unknown.length === 1 ? 's' : ''} to in these tables`);
  }
  if (d.unplaced.length) {
    throw new Decline(`I could not fit ${d.unplaced.map((w) => `"${w}"`).join(', ')} into a query, and answering without ${d.unplaced.length === 1 ? 'it' : 'them'} would answer another question`);
  }
  settleRanking(d, vocab, resolutions);
  // "how many orders did our top customer place": top by what — orders, revenue? Not guessed.
  if (d.top && d.top.n === undefined && !d.rankBy && d.measure && d.groups.length === 0) {
    throw new Decline(`"${d.top.dir === 'desc' ? 'top' : 'bottom'}" by what? Name the ranking, e.g. "the top customer by revenue", then ask about it`);
  }
  settleCompareYears(d);
  const ctx: Ctx = { vocab, hinted: new Set(d.hints), resolutions, mentioned: new Set(d.hints), usedSubjects: new Set() };
  for (const s of d.subjects) for (const t of tablesOf(s)) if (tablesOf(s).length === 1) ctx.mentioned.add(t.table);
  // a word that can only live in one table ("category") places the question in that table
  const numberTargets = d.numbers.flatMap((n) => (n.target ? [n.target] : []));
  const measureTargets = [d.measure?.target, d.rankBy?.target].filter((t): t is NonNullable<typeof t> => !!t);
  for (const t of [...d.subjects, ...d.groups.flatMap((g) => (g.target ? [g.target] : [])), ...d.values.map((v) => v.target), ...numberTargets, ...measureTargets]) {
    const owners = new Set(t.meanings.flatMap((m) => (m.kind === 'table' || m.kind === 'derived' || m.kind === 'formula' ? [m.table] : [m.ref.table])));
    if (owners.size === 1) ctx.mentioned.add([...owners][0]!);
  }

  if (d.never) {
    const plan = neverPlan(
      d,
      vocab,
      ctx.usedSubjects,
      (table) => {
        setBase(ctx, table);
        return dateOf(table, ctx, d);
      },
      resolutions,
    );
    const unusedNever = d.subjects.filter((s) => !ctx.usedSubjects.has(s) && !tablesOf(s).length);
    if (unusedNever.length) throw new Decline(`I am not sure how ${unusedNever.map((u) => `"${u.text}"`).join(', ')} fits into the question`);
    return plan;
  }
  const numericSubject = d.subjects.some((s) => columnsOf(s, numeric).length && !tablesOf(s).length);
  const dateSubject = d.subjects.some((s) => columnsOf(s, dateCol).length && !tablesOf(s).length);
  const bareEntity = d.groups.length === 0 && !numericSubject && !d.when && d.subjects.some((s) => tablesOf(s).length);
  // "what was revenue in Q4": a measure named alone is added up, not listed
  const bareMeasure = !d.listVerb && !d.measure && !d.rankBy && !d.keyLookup && !d.superlative && !d.distinct && d.groups.length === 0 && !d.subjects.some((s) => tablesOf(s).length);
  const measureSubjects = d.subjects.filter((s) => s.meanings.some((m) => m.kind === 'formula') || (columnsOf(s, (r) => r.role === 'measure').length && !columnsOf(s, (r) => r.role !== 'measure').length));
  if (bareMeasure && measureSubjects.length === 1) {
    d.measure = { target: measureSubjects[0]! };
    d.subjects = d.subjects.filter((s) => s !== measureSubjects[0]);
  }
  // "tickets from LATAM accounts": the number of them, or the list? A list only when asked for.
  const countOrList = bareEntity && !d.listVerb && !d.list && !d.keyLookup && !d.superlative && !d.distinct && !d.measure && !d.rankBy && !d.top && !d.share && !d.rate && !d.compare;
  if (countOrList) {
    const s = d.subjects.find((x) => tablesOf(x).length)!;
    const term = `${s.text} (number or list)`;
    const chosen = resolutions[term.toLowerCase()];
    if (chosen === 'count') d.measure = { fn: 'count', target: s };
    else if (chosen === 'list') d.listVerb = d.list = true;
    else
      throw new Ambiguity(
        term,
        [
          { id: 'count', label: `the number of ${s.text}` },
          { id: 'list', label: `the list of ${s.text}` },
        ],
        `Do you want the number of ${s.text}, or the list?`,
      );
  }
  const wantsRows =
    !d.measure &&
    !d.rankBy &&
    !d.share &&
    !d.top &&
    !d.rate &&
    !d.compare &&
    (d.keyLookup !== undefined || (d.superlative !== undefined && !d.when && !(d.superlative.kind === 'date' && dateSubject && !bareEntity)) || ((d.list || d.distinct || bareEntity) && d.groups.length === 0));
  let plan: Plan;
  if (wantsRows) plan = rowsPlan(d, ctx);
  else {
    let m = d.measure;
    if (!m && d.superlative?.kind === 'date' && (d.when || dateSubject)) m = { fn: d.superlative.dir === 'asc' ? 'min' : 'max' };
    // "revenue of the most expensive product": a figure and a superlative together are beyond a single grouping
    if (d.superlative && !(d.superlative.kind === 'date' && (d.when || dateSubject))) {
      throw new Decline(`I can list the ${d.superlative.dir === 'desc' ? 'top' : 'bottom'} rows by ${d.superlative.kind}, or compute a figure, but not both in one question; ask one step at a time`);
    }
    const ranked = d.rankBy && !m?.target ? { ...d.rankBy, ...(m?.fn && !d.rankBy.fn ? { fn: m.fn } : {}) } : m;
    let resolved = ranked ? resolveMeasure(ranked, d, ctx) : resolveMeasure({}, d, ctx);
    // a count per group needs no column; a sum or an average does
    if (!resolved && (!ranked?.fn || ranked.fn === 'count') && (d.groups.length || d.share)) {
      const first = d.groups.find((g) => g.target)?.target;
      const ref = first ? pickColumn(first, () => true, ctx) : undefined;
      if (ref) resolved = { measure: { fn: 'count' }, base: ref.table };
    }
    if (!resolved && m?.fn && (m.fn === 'min' || m.fn === 'max') && d.when) {
      const table = d.subjects.flatMap(tablesOf)[0]?.table;
      if (table) resolved = { measure: { fn: m.fn, column: colRef(dateOf(table, ctx, d)) }, base: table };
    }
    if (!resolved && (m?.fn === 'min' || m?.fn === 'max') && dateSubject) {
      const s = d.subjects.find((x) => columnsOf(x, dateCol).length && !tablesOf(x).length)!;
      ctx.usedSubjects.add(s);
      const ref = pickColumn(s, dateCol, ctx)!;
      resolved = { measure: { fn: m.fn, column: colRef(ref) }, base: ref.table };
    }
    if (!resolved && ranked?.fn && ranked.fn !== 'count') throw new Decline(`${describeFn(ranked.fn)} what? Name the column, e.g. "${ranked.fn === 'avg' ? 'average' : ranked.fn} of <column>"`);
    if (!resolved) throw new Decline('I could not tell what to count or measure');
    if (d.when && !resolved.measure.column && (m?.fn === 'min' || m?.fn === 'max')) {
      resolved = { measure: { fn: m.fn, column: colRef(dateOf(resolved.base, ctx, d)) }, base: resolved.base };
    }
    if (d.when && d.superlative?.kind === 'date' && resolved.measure.fn === 'count') {
      resolved = { measure: { fn: d.superlative.dir === 'asc' ? 'min' : 'max', column: colRef(dateOf(resolved.base, ctx, d)) }, base: resolved.base };
    }
    ctx.mentioned.add(resolved.base);
    setBase(ctx, resolved.base);
    plan = { shape: 'aggregate', base: resolved.base, measures: [resolved.measure], groups: [], filters: [], columns: [] };
    let rankedPlural: boolean | undefined;
    for (const g of d.groups) {
      // "average quantity per order line": per row of the measured table is no group at all
      if (d.perWord && g.target && tablesOf(g.target).some((t) => t.table === resolved!.base) && resolved.measure.column?.table === resolved.base) continue;
      plan.groups.push(resolveGroup(g, ctx, d));
    }
    settlePerEntity(plan, d, ctx);
    // "top 5 products by revenue": the ranked thing is the subject left over
    if ((d.top || d.which) && plan.groups.length === 0) {
      const subject = d.subjects.find((s) => !ctx.usedSubjects.has(s) && (tablesOf(s).some((t) => t.table !== resolved!.base) || columnsOf(s, (r) => !numeric(r)).length));
      if (!subject) throw new Decline('I could not tell what to rank');
      ctx.usedSubjects.add(subject);
      rankedPlural = subject.plural;
      plan.groups.push(resolveGroup({ target: subject }, ctx, d));
    }
    if (d.top) {
      plan.order = { by: 'measure', dir: d.top.dir };
      // "the top category": one; "top categories": ten
      rankedPlural ??= d.groups.find((g) => g.target)?.target?.plural;
      plan.limit = d.top.n ?? (rankedPlural === false ? 1 : TOP_DEFAULT);
    } else if (d.which) {
      plan.order = { by: 'measure', dir: d.which.dir };
      if (!d.which.plural) plan.limit = 1;
    } else if (plan.groups.some((g) => g.kind === 'time')) plan.order = { by: 'group', dir: 'asc' };
    else if (plan.groups.length) plan.order = { by: 'measure', dir: 'desc' };
  }
  const valueFilters = addFilters(plan, d, ctx);
  settleShare(plan, d, valueFilters, resolutions);
  settleCompareValues(plan, d, valueFilters);
  checkCoverage(plan, d);
  // A column the question names but the plan does not use means the question was not understood.
  // a second word for a column the plan already uses ("satisfaction score", "time in minutes") is no loose end
  const usedColumns = new Set(
    [
      ...plan.measures.flatMap((m) => (m.column ? [m.column] : [])),
      ...plan.groups.flatMap((g) => (g.kind === 'entity' ? [] : [g.column])),
      ...plan.filters.flatMap((f) => (f.kind === 'child_count' ? [] : [f.column])),
      ...plan.columns,
    ].map((c) => `${c.table}.${c.column}`),
  );
  const unused = d.subjects.filter((s) => !ctx.usedSubjects.has(s) && !tablesOf(s).length && !columnsOf(s, (r) => usedColumns.has(`${r.table}.${r.column}`)).length);
  // a table the question names must be in the plan ("accounts that raised a ticket in 2025")
  const inPlan = tablesOfPlan(plan);
  for (const f of plan.filters) if (f.kind === 'child_count') inPlan.add(f.child);
  const droppedTables = d.subjects.filter((s) => tablesOf(s).length && !tablesOf(s).some((t) => inPlan.has(t.table)) && !columnsOf(s, (r) => inPlan.has(r.table)).length);
  if (droppedTables.length) throw new Decline(`I could not work ${droppedTables.map((u) => `"${u.text}"`).join(', ')} into the query; ask about it directly, e.g. "number of ${droppedTables[0]!.text} by …"`);
  if (unused.length && plan.shape === 'aggregate' && !plan.groups.length) askToGroupBy(unused);
  if (unused.length) throw new Decline(`I am not sure how ${unused.map((u) => `"${u.text}"`).join(', ')} fits into the question`);
  return plan;
}

function resolveGroup(g: Draft['groups'][number], ctx: Ctx, d: Draft): Group {
  if (g.time) {
    // no date to bucket, but a column named for the unit (`month` holding "may", an integer `year`)
    const reach = ctx.reach;
    const hasDate = [...ctx.vocab.columns.values()].some((c) => c.role === 'date' && (!reach || reach.has(c.table)));
    const named = [...ctx.vocab.columns.values()].find((c) => c.column.toLowerCase() === g.time && (!reach || (reach.has(c.table) && !reach.get(c.table)!.fanout)));
    if (!hasDate && named) return { kind: 'column', column: colRef(named) };
    return { kind: 'time', column: colRef(dateOf(ctx.base!, ctx, d)), unit: g.time };
  }
  const t = g.target!;
  const tables = tablesOf(t);
  const cols = columnsOf(t, () => true);
  if (tables.length && (!cols.length || tables[0]!.strength >= 3)) {
    const table = pickTable(t, ctx)!;
    const p = ctx.vocab.tables.get(table)!;
    if (!p.key?.length) throw new Decline(`${table} has no key column to group its rows by`);
    const label = labelColumn(p);
    return { kind: 'entity', table, key: p.key[0]!, ...(label ? { label } : {}) };
  }
  const ref = pickColumn(t, (r) => !numeric(r) || cols.every((c) => numeric(c.ref)), ctx);
  if (!ref) throw new Decline(`I cannot group by "${t.text}"`);
  // "revenue per unit sold" is a ratio, not revenue listed by each quantity
  if (ref.role === 'measure' && d.perWord) throw new Decline(`"per ${t.text}" reads as a ratio of two figures, which is beyond the built-in planner; ask for each figure`);
  if (ref.role === 'date') return { kind: 'time', column: colRef(ref), unit: colRef(ref).year ? 'year' : 'day' };
  return { kind: 'column', column: colRef(ref) };
}

/** Adds the question's filters; returns those that came from values and percentages (a share's parts). */
function addFilters(plan: Plan, d: Draft, ctx: Ctx): Filter[] {
  const byColumn = new Map<string, { column: ColRef; values: string[]; negate: boolean }>();
  for (const v of d.values) {
    const cands = v.target.meanings.flatMap((m) => (m.kind === 'value' ? [m] : []));
    const chosen = best(
      v.target.text,
      cands,
      (m) => [...proximity(ctx, m.ref.table), m.strength],
      (m) => columnChoice(m.ref),
      ctx,
    )!;
    const key = `${chosen.ref.table}.${chosen.ref.column}.${v.negate}`;
    const entry = byColumn.get(key) ?? { column: colRef(chosen.ref), values: [], negate: v.negate };
    entry.values.push(chosen.value);
    byColumn.set(key, entry);
  }
  const fromValues: Filter[] = [];
  for (const e of byColumn.values()) {
    fromValues.push(e.values.length === 1 ? { kind: 'compare', column: e.column, op: e.negate ? '!=' : '=', value: e.values[0]! } : { kind: 'in', column: e.column, values: e.values, negate: e.negate });
  }
  for (const p of d.percents) {
    ctx.usedSubjects.add(p.target);
    const ref = pickColumn(p.target, numeric, ctx);
    if (!ref) throw new Decline(`"${p.text}" — ${p.target.text} is not a number to compare`);
    // a column holding fractions (0.2) reads "20%" as 0.2; one holding percents (20) as 20
    const max = Number(ctx.vocab.tables.get(ref.table)?.columns.find((c) => c.name === ref.column)?.max ?? NaN);
    fromValues.push({ kind: 'compare', column: colRef(ref), op: '=', value: max <= 1 ? Math.round(p.value * 1e6) / 1e8 : p.value });
  }
  plan.filters.push(...fromValues);
  for (const nf of d.numbers) {
    if (!nf.target) throw new Decline(`"${nf.text} ${nf.value}" — of what? Name the column, e.g. "amount ${nf.text} ${nf.value}"`);
    ctx.usedSubjects.add(nf.target);
    const ref = pickColumn(nf.target, numeric, ctx);
    if (!ref) throw new Decline(`"${nf.target.text}" is not a number to compare`);
    // "products that sold more than 100 units": per line, or in total? Not guessed.
    if (ctx.reach?.get(ref.table)?.fanout && plan.shape === 'aggregate') {
      throw new Decline(`"${nf.target.text} ${nf.text} ${nf.value}" — on a single ${ref.table} row, or in total per ${plan.base}? Ask for the total by ${plan.base} and sort it, or ask about ${ref.table} directly`);
    }
    plan.filters.push(nf.op === 'between' ? { kind: 'between', column: colRef(ref), low: nf.value, high: nf.high! } : { kind: 'compare', column: colRef(ref), op: nf.op, value: nf.value });
  }
  for (const c of d.childCounts) {
    const child = pickTable(c.child, ctx)!;
    const rel = ctx.vocab.relations.find((r) => r.from.table === child && r.to.table === plan.base);
    if (!rel) throw new Decline(`I do not see how ${child} relate to ${plan.base}`);
    plan.filters.push({ kind: 'child_count', table: plan.base, key: rel.to.column, child, fk: rel.from.column, op: c.op, value: c.value });
  }
  for (const dt of mergeDates(d.dates)) {
    const col = colRef(dateOf(plan.base, ctx, d));
    if (dt.month !== undefined) plan.filters.push({ kind: 'month_of_year', column: col, month: dt.month });
    else plan.filters.push({ kind: 'date_range', column: col, ...(dt.from ? { from: dt.from } : {}), ...(dt.to ? { to: dt.to } : {}), label: dt.label });
  }
  // "orders of customer 42": the key lookup becomes a filter on that row
  if (d.keyLookup && plan.shape === 'aggregate') {
    const t = d.keyLookup.target;
    const table = tablesOf(t).length ? pickTable(t, ctx)! : pickColumn(t, () => true, ctx)!.table;
    const key = ctx.vocab.tables.get(table)?.key?.[0];
    if (!key || d.keyLookup.contents) throw new Decline(`I could not apply "${t.text} ${d.keyLookup.value}" to this figure`);
    plan.filters.push({ kind: 'compare', column: { table, column: key }, op: '=', value: d.keyLookup.value });
  }
  for (const t of d.present ?? []) {
    ctx.usedSubjects.add(t);
    const ref = pickColumn(t, (r) => r.role === 'measure' || r.role === 'date', ctx)!;
    plan.filters.push(ref.role === 'date' ? { kind: 'not_null', column: colRef(ref) } : { kind: 'compare', column: colRef(ref), op: '>', value: 0 });
  }
  if (d.dows) plan.filters.push({ kind: 'day_of_week', column: colRef(dateOf(plan.base, ctx, d)), days: d.dows });
  if (joinsFor(plan.base, tablesOfPlan(plan), ctx.vocab.relations) === undefined) {
    throw new Decline(`I do not see how to connect ${[...tablesOfPlan(plan)].filter((t) => t !== plan.base).join(', ')} to ${plan.base}`);
  }
  return fromValues;
}

/**
 * "in 2023 and 2024", "for 2023 and 2024": two closed periods mean both, not rows in each at once
 * (which would be none). Adjacent or overlapping periods merge into one; others are declined, as
 * is a month of any year beside another period. Open-ended bounds ("after …", "before …") combine.
 */
function mergeDates(dates: Draft['dates']): Draft['dates'] {
  const closed = dates.filter((x) => x.from && x.to);
  if (closed.length < 2 && !(dates.some((x) => x.month !== undefined) && dates.length > 1)) return dates;
  if (dates.some((x) => x.month !== undefined)) throw new Decline('a month of any year beside another period: name each month with its year, e.g. "January 2024 and February 2024", or ask for each');
  const sorted = [...closed].sort((a, b) => a.from!.localeCompare(b.from!));
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i]!.from! > sorted[i - 1]!.to!) throw new Decline(`${sorted[i - 1]!.label} and ${sorted[i]!.label} are separate periods; ask for each one`);
  }
  const to = sorted
    .map((x) => x.to!)
    .sort()
    .at(-1)!;
  return [...dates.filter((x) => !(x.from && x.to)), { from: sorted[0]!.from!, to, label: sorted.map((x) => x.label).join(' and ') }];
}
