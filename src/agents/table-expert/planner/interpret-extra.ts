/**
 * The draft's later passes: cues that change the question's shape ("vs", "never", "rate",
 * "busiest", "on weekends"), percentages ("with a 20% discount") and a number right after its
 * column ("rated 5", "a satisfaction of 1"). Each claims only the words it places.
 */
import type { Keyword } from './lexicon.js';
import type { Draft } from './draft.js';
import { hasStructural, isKw, targetOf } from './interpret-words.js';
import type { QToken } from './tokens.js';

export function extraPasses(tokens: QToken[], d: Draft, next: (i: number, skip?: Keyword[]) => number, use: (...i: number[]) => void): void {
  const n = tokens.length;
  for (let i = 0; i < n; i++) {
    const t = tokens[i]!;
    if (t.used || t.t !== 'kw') continue;
    if (t.kw === 'compare') d.compare = true;
    else if (t.kw === 'never') d.never = true;
    else if (t.kw === 'rate') d.rate = true;
    else if (t.kw === 'weekend') d.dows = [0, 6];
    else if (t.kw === 'busy' && d.rankMissing) d.rankMissing.busy = true;
    // "customers without orders": a table after "without" asks for rows with none of it
    else if (t.kw === 'not' && /^without$/i.test(t.text) && tokens[next(i, ['all'])]?.t === 'schema' && (tokens[next(i, ['all'])] as { meanings: Array<{ kind: string }> }).meanings.some((m) => m.kind === 'table'))
      d.never = true;
    else continue;
    use(i);
  }
  // "order lines that had a discount", "tickets that have been resolved"
  for (let i = 0; i < n; i++) {
    if (!isKw(tokens[i], 'has') || tokens[i]!.used) continue;
    const k = next(i);
    const c = tokens[k];
    const after = tokens[next(k)];
    const numberAfter = after?.t === 'number' || (isKw(after, 'in') && tokens[next(next(k))]?.t === 'number');
    if (c?.t !== 'schema' || c.used || !hasStructural(c) || numberAfter || isKw(after, 'gt', 'gte', 'lt', 'lte', 'between')) continue;
    const target = targetOf(c)!;
    if (target.meanings.some((m) => m.kind === 'table') || !target.meanings.every((m) => m.kind === 'column' && (m.ref.role === 'measure' || m.ref.role === 'date'))) continue;
    d.present.push(target);
    use(i, k);
  }
  // "total revenue for the top 5 products": a figure over a ranking's members is two questions in one
  if (d.rankAt !== undefined) {
    let k = d.rankAt - 1;
    while (k >= 0 && tokens[k]!.t === 'filler') k--;
    if (isKw(tokens[k], 'in') && tokens.slice(0, k).some((x) => x.t === 'kw' && ['sum', 'avg', 'median', 'count'].includes(x.kw))) d.unplaced.push(tokens[d.rankAt]!.text);
  }
  // "with a 20% discount", "10% off", "a satisfaction of 1", "rated 5"
  for (let i = 0; i < n; i++) {
    const t = tokens[i]!;
    if (t.used || t.t !== 'number') continue;
    const near = [next(i, ['in', 'has']), ...[i - 1, i - 2, i - 3].filter((k) => k >= 0)];
    const at = near.find((k) => {
      const c = tokens[k];
      if (!(c?.t === 'schema' && !c.used && hasStructural(c))) return false;
      if (k > i) return true;
      for (let j = k + 1; j < i; j++) if (!(tokens[j]!.t === 'filler' || isKw(tokens[j], 'in', 'has'))) return false;
      return true;
    });
    if (at === undefined) continue;
    const target = targetOf(tokens[at]!)!;
    if (!target.meanings.some((m) => m.kind === 'column' && m.ref.role === 'measure')) continue;
    if (/%$/.test(t.text)) d.percents.push({ target, value: t.value, text: t.text });
    else d.numbers.push({ target, op: '=', value: t.value, text: 'of' });
    use(i, at);
  }
}
