/**
 * Small readings of tokens shared by interpret.ts and its passes (interpret-dates.ts,
 * interpret-extra.ts, interpret-rankings.ts): which keywords compare or aggregate, and what a
 * schema word can stand for. Kept apart so the passes do not import the interpreter that calls them.
 */
import type { Target } from './draft.js';
import type { Keyword } from './lexicon.js';
import type { AggFn, CompareOp } from './plan.js';
import type { QToken } from './tokens.js';

export const COMPARE: Partial<Record<Keyword, CompareOp>> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };
export const AGG: Partial<Record<Keyword, AggFn>> = { count: 'count', sum: 'sum', avg: 'avg', min: 'min', max: 'max', median: 'median' };

export const isKw = (t: QToken | undefined, ...kws: Keyword[]): boolean => t?.t === 'kw' && kws.includes(t.kw);
/** a schema word's table and column meanings (its value meanings dropped) */
export const targetOf = (t: QToken): Target | undefined => (t.t === 'schema' ? { text: t.text, meanings: t.meanings.filter((m) => m.kind !== 'value'), plural: t.plural } : undefined);
/** the word can name a table or column, not only a value */
export const hasStructural = (t: QToken): boolean => t.t === 'schema' && t.meanings.some((m) => m.kind !== 'value');
export const isMeasureLike = (t: Target): boolean => t.meanings.some((m) => m.kind === 'formula' || (m.kind === 'column' && m.ref.role === 'measure'));
