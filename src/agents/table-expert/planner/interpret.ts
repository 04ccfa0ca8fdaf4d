/**
 * From tokens to a draft: which words ask for what (a count, a group, a filter, a ranking), with
 * schema words still carrying every meaning they could have. Each pass claims the tokens it
 * understands; whatever no pass claims is reported, so the planner can decline instead of guess.
 */
import type { Draft, Target } from './draft.js';
import type { Keyword } from './lexicon.js';
import type { QToken } from './tokens.js';
import type { Meaning } from './vocabulary.js';
import { extraPasses } from './interpret-extra.js';
import { datePass } from './interpret-dates.js';
import { rankingPass } from './interpret-rankings.js';
import { AGG, COMPARE, hasStructural, isKw, isMeasureLike, targetOf } from './interpret-words.js';

const EVENT_VERB = /^(raised?|filed?|files|opened|submitted|logged|created|made|placed)$/i;

/** keywords that change the answer: when one is left over, the question was not fully read */
const PLACE_OR_DECLINE = new Set<Keyword>([
  'count',
  'sum',
  'avg',
  'min',
  'max',
  'median',
  'most',
  'fewest',
  'top',
  'bottom',
  'share',
  'expensive',
  'cheap',
  'newest',
  'oldest',
  'gt',
  'gte',
  'lt',
  'lte',
  'between',
  'not',
  'never',
  'rate',
  'before',
  'after',
  'since',
  'until',
  'compare',
  'weekend',
]);

const hasValue = (t: QToken): boolean => t.t === 'schema' && t.meanings.some((m) => m.kind === 'value');

export function interpret(tokens: QToken[]): Draft {
  const d: Draft = {
    groups: [],
    values: [],
    numbers: [],
    childCounts: [],
    dates: [],
    list: false,
    distinct: false,
    when: false,
    share: false,
    subjects: [],
    hints: [],
    unknown: [],
    cues: { also: false, instead: false, only: false, whatAbout: false, clear: false },
    unplaced: [],
    compare: false,
    never: false,
    rate: false,
    percents: [],
    present: [],
  };
  const n = tokens.length;
  /** next token index after i that is not filler (and not one of the skippable keywords) */
  const next = (i: number, skip: Keyword[] = []): number => {
    let j = i + 1;
    while (j < n && (tokens[j]!.t === 'filler' || (tokens[j]!.t === 'kw' && skip.includes((tokens[j] as { kw: Keyword }).kw)))) j++;
    return j;
  };
  const use = (...idx: number[]) => idx.forEach((k) => tokens[k] && (tokens[k]!.used = true));

  datePass(tokens, d, next, use);

  // Rankings: "top 5", "bottom 3", "the 3 most expensive", "cheapest".
  for (let i = 0; i < n; i++) {
    const t = tokens[i]!;
    if (t.used || t.t !== 'kw') continue;
    if (t.kw === 'top' || t.kw === 'bottom') {
      const j = next(i);
      const num = tokens[j]?.t === 'number' && !tokens[j]!.used ? (tokens[j] as { value: number }).value : undefined;
      // "our best month", "the worst category": one, the most or the least of something
      if (num === undefined && /^(best|worst)$/i.test(t.text)) {
        (t as { kw: Keyword }).kw = t.kw === 'top' ? 'most' : 'fewest';
        continue;
      }
      d.rankAt = i;
      d.top = { dir: t.kw === 'top' ? 'desc' : 'asc', ...(num !== undefined ? { n: num } : {}) };
      use(i, ...(num !== undefined ? [j] : []));
    } else if (t.kw === 'expensive' || t.kw === 'cheap' || t.kw === 'newest' || t.kw === 'oldest') {
      const prev = tokens[i - 1];
      const num = prev?.t === 'number' && !prev.used ? prev.value : undefined;
      d.superlative = { kind: t.kw === 'expensive' || t.kw === 'cheap' ? 'price' : 'date', dir: t.kw === 'expensive' || t.kw === 'newest' ? 'desc' : 'asc', ...(num !== undefined ? { n: num } : {}) };
      use(i, ...(num !== undefined ? [i - 1] : []));
    }
  }

  // Comparisons: "amount over 500", "price between 10 and 50", "more than 10 orders".
  for (let i = 0; i < n; i++) {
    const t = tokens[i]!;
    if (t.used || t.t !== 'kw' || !(COMPARE[t.kw] || t.kw === 'between')) continue;
    const j = next(i);
    const a = tokens[j];
    if (a?.t !== 'number' || a.used) continue;
    let high: number | undefined;
    let end = j;
    if (t.kw === 'between') {
      const k = next(j);
      const hiAt = next(k);
      const hi = tokens[hiAt];
      if (!isKw(tokens[k], 'and') || hi?.t !== 'number') continue;
      high = hi.value;
      end = hiAt;
    }
    // the column is just before ("price over 100", "with a price of over 100") or just after ("over 100 in price")
    let target: Target | undefined;
    let targetAt = -1;
    for (let k = i - 1; k >= Math.max(0, i - 4); k--) {
      const c = tokens[k]!;
      if (c.t === 'schema' && hasStructural(c) && !c.used) {
        target = targetOf(c);
        targetAt = k;
        break;
      }
      if (!(c.t === 'filler' || isKw(c, 'has', 'in', 'not'))) break;
    }
    const after = next(end, ['in']);
    const afterTok = tokens[after];
    if (afterTok?.t === 'schema' && hasStructural(afterTok) && !afterTok.used) {
      const tt = targetOf(afterTok)!;
      if (tt.meanings.some((m) => m.kind === 'table') && COMPARE[t.kw] && (!target || !isMeasureLike(target))) {
        d.childCounts.push({ child: tt, op: COMPARE[t.kw]!, value: a.value });
        use(i, j, after);
        continue;
      }
      if (!target) {
        target = tt;
        targetAt = after;
      } else if (target.meanings.every((m) => m.kind === 'table') && isMeasureLike(tt)) {
        // "tickets more than 60 minutes": the table is what is counted, the column after the number is compared
        target = tt;
        targetAt = after;
      }
    }
    d.numbers.push({ ...(target ? { target } : {}), op: t.kw === 'between' ? 'between' : COMPARE[t.kw]!, value: a.value, ...(high !== undefined ? { high } : {}), text: t.text });
    for (let k = i; k <= end; k++) use(k);
    if (targetAt >= 0) use(targetAt);
  }

  // "how many days had rain", "how many rainy days", "number of months with a sale": periods are counted, not grouped by
  for (let i = 0; i < n; i++) {
    const t = tokens[i]!;
    if (t.used || !isKw(t, 'count')) continue;
    let j = next(i);
    const adjective = tokens[j];
    if (adjective && hasValue(adjective) && !hasStructural(adjective) && tokens[next(j)]?.t === 'time') j = next(j);
    const p = tokens[j];
    if (t.used || !isKw(t, 'count') || p?.t !== 'time' || p.used || p.unit === 'dow' || !/s$/i.test(p.text) || d.measure) continue;
    d.measure = { fn: 'count', periods: p.unit };
    use(i, j);
  }

  // "which X has the most Y", "top 3 countries bring in the most revenue", "our best month for sales"
  rankingPass(tokens, d, next, use);

  // Groups: "by category", "per month", "by channel and status", "monthly".
  for (let i = 0; i < n; i++) {
    const t = tokens[i]!;
    if (t.used) continue;
    if (t.t === 'time') {
      // "on snowy days": the value says which rows; the days are not a grouping
      const before = tokens
        .slice(0, i)
        .filter((x) => x.t !== 'filler')
        .at(-1);
      if (!(/s$/i.test(t.text) && before && hasValue(before) && !hasStructural(before))) d.groups.push({ time: t.unit });
      use(i);
      continue;
    }
    if (!isKw(t, 'by')) continue;
    if (/^(per|each|every|for each|for every)$/i.test(t.text)) d.perWord = true;
    use(i);
    let j = next(i);
    for (;;) {
      const g = tokens[j];
      if (!g || g.used) break;
      if (g.t === 'time') {
        d.groups.push({ time: g.unit });
        use(j);
      } else if (g.t === 'kw' && AGG[g.kw] && tokens[next(j)]?.t === 'schema') {
        // "by number of orders", "by total revenue": a ranking, not a group
        const k = next(j);
        d.rankBy = { fn: AGG[g.kw]!, target: targetOf(tokens[k]!)! };
        use(j, k);
        j = k;
      } else if (g.t === 'schema' && !hasStructural(g) && tokens[next(j)]?.t === 'schema' && (d.top || d.which)) {
        // "by solved tickets": the value stays a filter, the table after it is what is counted
        j = next(j);
        continue;
      } else if (g.t === 'schema' && hasStructural(g) && isKw(tokens[next(j)], 'count') && g.meanings.some((m) => m.kind === 'table')) {
        // "by ticket count"
        d.rankBy = { fn: 'count', target: targetOf(g)! };
        use(j, next(j));
        j = next(j);
      } else if (g.t === 'schema' && hasStructural(g)) {
        const target = targetOf(g)!;
        const ranking = (d.top || d.which || d.superlative) && isMeasureLike(target) && !target.meanings.some((m) => m.kind === 'table');
        // "top 5 agents by tickets": ranked by how many tickets each has
        const byCount = (d.top || d.which) && !d.rankBy && target.meanings.every((m) => m.kind === 'table') && d.groups.length === 0;
        if (ranking) d.rankBy = { target };
        else if (byCount) d.rankBy = { fn: 'count', target };
        else d.groups.push({ target });
        use(j);
      } else break;
      const k = next(j);
      if (!isKw(tokens[k], 'and', 'by')) break;
      const after = next(k);
      if (!(tokens[after]?.t === 'time' || (tokens[after]?.t === 'schema' && hasStructural(tokens[after]!)))) break;
      use(k);
      j = after;
    }
  }

  // Aggregates: "how many orders", "total revenue", "average unit price", "number of distinct countries".
  for (let i = 0; i < n; i++) {
    const t = tokens[i]!;
    if (t.used || t.t !== 'kw' || !AGG[t.kw]) continue;
    let fn = AGG[t.kw]!;
    let j = next(i, ['in']);
    let perCount = false;
    if ((fn === 'avg' || fn === 'median') && isKw(tokens[j], 'count')) {
      perCount = true;
      use(j);
      j = next(j, ['in']);
    }
    if (isKw(tokens[j], 'distinct')) {
      fn = 'count_distinct';
      use(j);
      j = next(j, ['in']);
    }
    const tt = tokens[j];
    // a second aggregate ("the min and max price") is not dropped: it stays unplaced and the question is declined
    if (d.measure) continue;
    use(i);
    if (tt?.t === 'schema' && !tt.used) {
      if (hasStructural(tt)) {
        d.measure = { fn, target: targetOf(tt)!, ...(perCount ? { perCount } : {}) };
        use(j);
      } else {
        // "how many books": count what the value belongs to, filtered by the value
        d.measure = { fn };
      }
    } else if (!d.measure) d.measure = { fn };
  }

  for (let i = 0; i < n; i++) {
    const t = tokens[i]!;
    if (t.used || t.t !== 'kw') continue;
    if (t.kw === 'list' || t.kw === 'which') d.list = true;
    if (t.kw === 'list') d.listVerb = true;
    else if (t.kw === 'distinct') d.distinct = true;
    else if (t.kw === 'when') d.when = true;
    else if (t.kw === 'share') d.share = true;
    else if (t.kw === 'also') d.cues.also = true;
    else if (t.kw === 'instead') d.cues.instead = true;
    else if (t.kw === 'only') d.cues.only = true;
    else if (t.kw === 'what_about') d.cues.whatAbout = true;
    else if (t.kw === 'clear') d.cues.clear = true;
    else continue;
    use(i);
  }

  // Key lookups: "order 42", "customer #17".
  for (let i = 0; i + 1 < n; i++) {
    const t = tokens[i]!;
    const num = tokens[i + 1]!;
    if (t.used || num.used || t.t !== 'schema' || num.t !== 'number' || !Number.isInteger(num.value)) continue;
    const target = targetOf(t)!;
    if (!target.meanings.some((m) => m.kind === 'table' || (m.kind === 'column' && (m.ref.role === 'key' || m.ref.role === 'reference')))) continue;
    // "what was in order 1000": the rows inside it, not the order's own row
    d.keyLookup = { target, value: num.value, ...(isKw(tokens[i - 1], 'in') && /^(in|inside)$/i.test(tokens[i - 1]!.text) ? { contents: true } : {}) };
    use(i, i + 1);
  }

  // Values: "cancelled", "in Germany", "not online", "status completed".
  for (let i = 0; i < n; i++) {
    const t = tokens[i]!;
    if (t.used || t.t !== 'schema' || !hasValue(t)) continue;
    // A word that is both a column and a value ("home"?) is a value here only when nothing else claimed it.
    const values = t.meanings.filter((m) => m.kind === 'value');
    let negate = [tokens[i - 1], tokens[i - 2]].some((p) => isKw(p, 'not'));
    // "not in Books or Toys": the negation covers the whole list
    const prevValue = d.values[d.values.length - 1];
    if (!negate && prevValue?.negate && isKw(tokens[i - 1], 'or', 'and') && tokens[i - 2]?.text === prevValue.target.text) negate = true;
    d.values.push({ target: { text: t.text, meanings: values, plural: t.plural }, negate });
    use(i);
    // "status completed": the column name before its value is part of the filter
    const prev = tokens[i - 1];
    const ownColumn = (x: QToken | undefined) =>
      x?.t === 'schema' && !x.used && x.meanings.some((m) => m.kind === 'column' && values.some((v) => v.kind === 'value' && v.ref.table === m.ref.table && v.ref.column === m.ref.column));
    if (ownColumn(prev)) use(i - 1);
    // "the Books category", "the Enterprise plan", "the phone channel": the column after its value
    const after = next(i);
    if (ownColumn(tokens[after])) {
      use(after);
      // the value's column names which of its meanings is meant
      const only = values.filter((v) => v.kind === 'value' && (tokens[after] as { meanings: Meaning[] }).meanings.some((m) => m.kind === 'column' && m.ref.table === v.ref.table && m.ref.column === v.ref.column));
      d.values[d.values.length - 1]!.target.meanings = only;
    }
  }
  for (let i = 0; i < n; i++) if (isKw(tokens[i], 'not') && tokens.slice(i + 1, i + 3).some((x) => x.t === 'schema' && d.values.some((v) => v.target.text === x.text))) use(i);

  extraPasses(tokens, d, next, use);
  for (const t of tokens) {
    if (t.used) continue;
    if (t.t === 'kw' && PLACE_OR_DECLINE.has(t.kw)) d.unplaced.push(t.text);
    if (t.t === 'schema') {
      d.subjects.push(targetOf(t)!);
      t.used = true;
    } else if (t.t === 'verb' || (t.t === 'filler' && EVENT_VERB.test(t.text))) {
      if (t.t === 'filler') {
        // "raised a ticket", "filed tickets": the event lives in the table named after the verb
        let k = tokens.indexOf(t) + 1;
        while (tokens[k]?.t === 'filler') k++;
        const named = tokens[k];
        if (named?.t === 'schema') for (const m of named.meanings) if (m.kind === 'table') d.hints.push(m.table);
        t.used = true;
        continue;
      }
      d.hints.push(...t.tables);
      t.used = true;
    } else if (t.t === 'unknown') d.unknown.push(t.text);
    else if (t.t === 'number') d.unknown.push(t.text);
    // a period no pass could place ("Q1-Q2 2024" reads Q2 2024 and leaves Q1) is never dropped
    else if (t.t === 'quarter' || t.t === 'month' || t.t === 'date' || t.t === 'yearmonth') d.unplaced.push(t.text);
  }
  return d;
}
