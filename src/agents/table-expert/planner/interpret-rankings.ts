/**
 * Rankings in their ordinary forms: "which X has the most Y", "which month had the highest
 * revenue", "the top 3 countries bring in the most revenue", "what was our best month for sales",
 * "what is the least popular category by units sold". The ranked thing (X) is the first schema or
 * time word after "which"/"top N" (or right after the superlative); the measure (Y) follows the
 * superlative. With no Y the draft says so, and the planner asks by what instead of guessing.
 */
import type { Keyword } from './lexicon.js';
import type { Draft } from './draft.js';
import { AGG, hasStructural, isKw, targetOf } from './interpret-words.js';
import type { AggFn } from './plan.js';
import type { QToken } from './tokens.js';

const SUPERLATIVE: Keyword[] = ['most', 'fewest', 'max', 'min'];

export function rankingPass(tokens: QToken[], d: Draft, next: (i: number, skip?: Keyword[]) => number, use: (...i: number[]) => void): void {
  const n = tokens.length;
  const rankable = (t: QToken | undefined) => !!t && !t.used && (t.t === 'time' || (t.t === 'schema' && hasStructural(t)));
  for (let i = 0; i < n; i++) {
    const t = tokens[i]!;
    if (t.used || t.t !== 'kw' || !SUPERLATIVE.includes(t.kw)) continue;
    // a ranking needs a "which"/"what"/"who" or a "top N" before the superlative
    let at = -1;
    for (let k = i - 1; k >= 0; k--) if ((isKw(tokens[k], 'which') && !tokens[k]!.used) || k === d.rankAt) at = k;
    if (at < 0) continue;
    // X between the cue and the superlative, else right after it
    let x = -1;
    for (let k = at + 1; k < i; k++)
      if (rankable(tokens[k])) {
        x = k;
        break;
      }
    let after = i;
    if (x < 0) {
      const k = next(i);
      if (!rankable(tokens[k])) continue;
      // "the largest order line amount", "the highest unit price": an aggregate, not a ranking
      const kt = tokens[k]!;
      const own = (c: QToken | undefined) => c?.t === 'schema' && kt.t === 'schema' && c.meanings.some((m) => m.kind === 'column' && kt.meanings.some((km) => km.kind === 'table' && km.table === m.ref.table));
      if (kt.t === 'schema' && (kt.meanings.some((m) => m.kind === 'column' && m.ref.role === 'measure') || own(tokens[next(k)]))) continue;
      x = k;
      after = k;
    }
    // Y after the superlative (or after X when X followed it), with an optional aggregate word
    let y = next(after, ['in', 'has', 'by']);
    let fn: AggFn | undefined;
    const yk = tokens[y];
    if (yk?.t === 'kw' && AGG[yk.kw]) {
      fn = AGG[yk.kw];
      use(y);
      y = next(y);
    }
    // "the most urgent tickets": a value before the measure stays a filter
    while (tokens[y]?.t === 'schema' && !hasStructural(tokens[y]!) && tokens[next(y)]?.t === 'schema' && !isKw(tokens[next(next(y))], 'rate')) y = next(y);
    const xt = tokens[x]!;
    const dir = t.kw === 'most' || t.kw === 'max' ? 'desc' : 'asc';
    if (xt.t === 'time') d.groups.push({ time: xt.unit });
    else d.groups.push({ target: targetOf(xt)! });
    const yt = tokens[y];
    if (yt?.t === 'schema' && !yt.used && hasStructural(yt)) {
      d.rankBy = { ...(fn ? { fn } : {}), target: targetOf(yt)! };
      use(y);
    } else if (fn) d.rankBy = { fn };
    else if (yt?.t === 'schema' && isKw(tokens[next(y)], 'rate')) {
      // "the highest cancellation rate": the value and "rate" make the measure
    } else if (!isKw(tokens[next(after)], 'by')) d.rankMissing = { text: t.text, busy: false };
    if (d.top && d.rankAt === at) d.top.dir = dir;
    else d.which = { dir, plural: xt.t === 'schema' && xt.plural };
    use(at, x, i);
    return;
  }
}
