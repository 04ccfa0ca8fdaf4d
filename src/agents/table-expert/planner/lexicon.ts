/**
 * The planner's English: keyword phrases, filler words, built-in synonyms and the markers of
 * questions it will not guess at. Phrases are written in lemma form (see `lemma`), one space
 * between words; the longest phrase wins.
 */
import { singular } from '../catalog/profile.js';

// biome-ignore format: a word table reads best in rows
export type Keyword =
  | 'count' | 'sum' | 'avg' | 'min' | 'max' | 'median'
  | 'most' | 'fewest' | 'top' | 'bottom' | 'distinct' | 'list' | 'by' | 'which' | 'when'
  | 'gt' | 'gte' | 'lt' | 'lte' | 'between' | 'and' | 'or' | 'not' | 'in' | 'before' | 'after' | 'since' | 'until' | 'from' | 'to'
  | 'share' | 'has' | 'expensive' | 'cheap' | 'newest' | 'oldest' | 'also' | 'instead' | 'only' | 'what_about' | 'all' | 'clear'
  | 'compare' | 'never' | 'rate' | 'busy' | 'weekend';

// biome-ignore format: a word table reads best in rows
export const KEYWORDS: ReadonlyMap<string, Keyword> = new Map<string, Keyword>([
  ['how many', 'count'], ['number of', 'count'], ['count of', 'count'], ['count', 'count'], ['total number of', 'count'],
  ['how much', 'sum'], ['total', 'sum'], ['sum of', 'sum'], ['sum', 'sum'], ['overall', 'sum'],
  ['average', 'avg'], ['avg', 'avg'], ['mean', 'avg'], ['typical', 'avg'],
  ['median', 'median'],
  ['minimum', 'min'], ['min', 'min'], ['lowest', 'min'], ['smallest', 'min'],
  ['maximum', 'max'], ['max', 'max'], ['longest', 'max'], ['shortest', 'min'], ['highest', 'max'], ['largest', 'max'], ['biggest', 'max'], ['greatest', 'max'],
  ['most', 'most'], ['fewest', 'fewest'], ['least', 'fewest'],
  ['top', 'top'], ['best', 'top'], ['leading', 'top'], ['bottom', 'bottom'], ['worst', 'bottom'],
  ['distinct', 'distinct'], ['unique', 'distinct'], ['different', 'distinct'],
  ['list', 'list'], ['show', 'list'], ['display', 'list'], ['give', 'list'], ['get', 'list'], ['find', 'list'], ['what are', 'list'], ['what be', 'list'],
  ['by', 'by'], ['per', 'by'], ['for each', 'by'], ['for every', 'by'], ['each', 'by'], ['every', 'by'], ['broken down by', 'by'], ['group by', 'by'], ['grouped by', 'by'], ['split by', 'by'], ['across', 'by'],
  ['which', 'which'], ['what', 'which'], ['who', 'which'],
  ['when', 'when'], ['what date', 'when'],
  ['more than', 'gt'], ['greater than', 'gt'], ['over', 'gt'], ['above', 'gt'], ['exceeding', 'gt'], ['higher than', 'gt'], ['bigger than', 'gt'], ['larger than', 'gt'], ['>', 'gt'],
  ['at least', 'gte'], ['no less than', 'gte'], ['>=', 'gte'],
  ['less than', 'lt'], ['fewer than', 'lt'], ['under', 'lt'], ['below', 'lt'], ['lower than', 'lt'], ['cheaper than', 'lt'], ['<', 'lt'],
  ['at most', 'lte'], ['no more than', 'lte'], ['up to', 'lte'], ['<=', 'lte'],
  ['between', 'between'], ['and', 'and'], [',', 'and'], ['or', 'or'],
  ['not', 'not'], ['excluding', 'not'], ['exclude', 'not'], ['except', 'not'], ['without', 'not'], ['other than', 'not'], ['non', 'not'], ['but not', 'not'],
  ['in', 'in'], ['during', 'in'], ['for', 'in'], ['of', 'in'], ['on', 'in'],
  ['before', 'before'], ['prior to', 'before'], ['after', 'after'], ['since', 'since'], ['until', 'until'], ['through', 'until'], ['from', 'from'], ['to', 'to'],
  ['share', 'share'], ['percentage', 'share'], ['percent', 'share'], ['proportion', 'share'], ['%', 'share'],
  ['ha', 'has'], ['has', 'has'], ['have', 'has'], ['had', 'has'], ['with', 'has'], ['having', 'has'], ['contain', 'has'], ['containing', 'has'], ['contained', 'has'], ['include', 'has'], ['included', 'has'], ['including', 'has'],
  ['most expensive', 'expensive'], ['expensive', 'expensive'], ['priciest', 'expensive'], ['cheapest', 'cheap'], ['least expensive', 'cheap'], ['cheap', 'cheap'],
  ['newest', 'newest'], ['latest', 'newest'], ['most recent', 'newest'], ['last', 'newest'], ['oldest', 'oldest'], ['earliest', 'oldest'], ['first', 'oldest'],
  ['also', 'also'], ['as well', 'also'], ['too', 'also'], ['instead', 'instead'], ['rather', 'instead'],
  ['only', 'only'], ['just', 'only'], ['what about', 'what_about'], ['how about', 'what_about'], ['and for', 'what_about'],
  ['compare', 'compare'], ['never', 'never'], ['no', 'never'], ['rate', 'rate'], ['ratio', 'rate'], ['busy', 'busy'], ['weekend', 'weekend'],
  ['all', 'all'], ['any', 'all'], ['without filter', 'clear'], ['without the filter', 'clear'], ['remove the filter', 'clear'], ['no filter', 'clear'], ['all time', 'clear'],
]);

/** Time units, in the forms that mean "bucket by this unit". */
// biome-ignore format: a word table reads best in rows
export const TIME_UNITS: ReadonlyMap<string, TimeUnit> = new Map<string, TimeUnit>([
  ['day', 'day'], ['daily', 'day'], ['date', 'day'], ['week', 'week'], ['weekly', 'week'], ['month', 'month'], ['monthly', 'month'],
  ['day of the week', 'dow'], ['day of week', 'dow'], ['weekday', 'dow'],
  ['quarter', 'quarter'], ['quarterly', 'quarter'], ['year', 'year'], ['yearly', 'year'], ['annual', 'year'], ['annually', 'year'], ['per annum', 'year'],
]);
export type TimeUnit = 'day' | 'week' | 'month' | 'quarter' | 'year' | 'dow';

// biome-ignore format: a word table reads best in rows
export const MONTHS: ReadonlyMap<string, number> = new Map([
  ['january', 1], ['jan', 1], ['february', 2], ['feb', 2], ['march', 3], ['mar', 3], ['april', 4], ['apr', 4], ['may', 5], ['june', 6], ['jun', 6],
  ['july', 7], ['jul', 7], ['august', 8], ['aug', 8], ['september', 9], ['sep', 9], ['sept', 9], ['october', 10], ['oct', 10], ['november', 11], ['nov', 11],
  ['december', 12], ['dec', 12],
]);

/** Words that carry no meaning for the plan. */
// biome-ignore format: a word table reads best in rows
export const FILLER = new Set([
  'the', 'a', 'an', 'is', 'are', 'be', 'was', 'were', 'been', 'being', 'do', 'doe', 'does', 'did', 'done', 'me', 'us', 'i', 'we', 'you', 'my', 'our', 'your',
  'please', 'tell', 'there', 'their', 'them', 'they', 'it', 'its', 'that', 'this', 'these', 'those', 'can', 'could', 'would', 'will', 'shall',
  'data', 'database', 'dataset', 'table', 'record', 'row', 'entry', 'value', 'figure', 'result', 'overview', 'breakdown of', 'here', 'now', 'so', 'far',
  'altogether', 'in total', 'currently', 'exist', 'existing', 'available', 'known', 'recorded', 'registered in', 'stored', 'listed', 'kind', 'type of',
  'come', 'from which', 'where', 'whose', 'all the', 'some', 'made', 'generated', 'earned',
  'make', 'place', 'buy', 'sell', 'generate', 'earn', 'live', 'located', 'based', 'status of', 'respectively', 'ranked', 'sorted', 'ordered by',
  'up', 'out', 'about', 'like', 'than', 'as', 'at', 'into', 'within', 'one', 'item', 'thing', 'time', 'period', 'range', 'level', 'term', 'way',
  'value of', 'in term of', 'measured by', 'based on', 'grouped', 'group', 'category wise', 'wise', 'along', 'together', 'along with', 'chart', 'plot', 'graph', 'as a chart',
  // casual verbs and words that name nothing in the data
  'still', 'yet', 'anything', 'something', 'ever', 'file', 'raise', 'raised', 'handle', 'handled', 'carry', 'receive', 'received', 'get', 'got',
  'popular', 'new', 'volume', 'wait', 'waited', 'waiting', 'support', 'our', 'how', 'people', 'person', 'customer-wise', 'so far', 'in total', 'total of', 'current', 'currently', 'ones', 'stuff',
]);

/** Questions the planner must not guess at: it says so instead. */
// biome-ignore format: a word table reads best in rows
export const UNSUPPORTED: ReadonlyArray<[RegExp, string]> = [
  [/\bwhy\b/, 'explaining causes ("why") needs judgement, not a query'],
  [/\b(predict|prediction|forecast|projection|will be|next (week|month|quarter|year))\b/, 'predictions are beyond a query over past data'],
  [/\b(correlat\w*|regression|causal\w*)\b/, 'correlations and regressions are beyond the built-in planner'],
  [/\b(today|yesterday|tomorrow|this (week|month|quarter|year)|last (week|month|quarter|year|\d+ \w+)|past (week|month|quarter|year|\d+ \w+)|ago|recently)\b/, 'relative dates need a reference point; name the period, e.g. "in March 2024"'],
  [/\b(should|recommend|suggest|best way|opinion)\b/, 'advice needs judgement, not a query'],
  [/\bper \w+ per\b/, 'nested aggregates (an average of counts per group) are beyond the built-in planner'],
  [/\b(growth|grow|grew|increase|decrease|change|difference|drop|dropped|slipped)\b/, 'changes between periods (growth, difference) are beyond the built-in planner; ask for both periods side by side, e.g. "revenue in 2023 vs 2024"'],
  [/\b(percentile|quartile|stddev|standard deviation|variance)\b/, 'distribution statistics are beyond the built-in planner'],
];

/** Verbs that name no column but hint at the table an event lives in (its date, its rows). */
// biome-ignore format: a word table reads best in rows
export const VERB_HINTS: ReadonlyMap<string, readonly string[]> = new Map([
  ['ordered', ['orders']],
  ['placed', ['orders']],
  ['bought', ['orders', 'order_lines']],
  ['buy', ['orders', 'order_lines']],
  ['purchased', ['orders', 'order_lines']],
  ['sold', ['order_lines', 'orders']],
  ['spent', ['order_lines', 'orders']],
]);

/** Built-in synonyms that point at column names, tried in order, when such a column exists. */
// biome-ignore format: a word table reads best in rows
export const COLUMN_SYNONYMS: ReadonlyMap<string, readonly string[]> = new Map([
  ['revenue', ['revenue', 'sales', 'amount', 'total_amount', 'net_amount', 'line_total', 'total']],
  ['sale', ['sales', 'revenue', 'amount', 'total_amount', 'net_amount', 'line_total', 'total']],
  ['turnover', ['revenue', 'sales', 'amount', 'total_amount']],
  ['income', ['revenue', 'income', 'amount']],
  ['money', ['amount', 'revenue', 'sales']],
  ['spending', ['amount', 'revenue', 'sales']],
  ['spend', ['amount', 'revenue', 'sales']],
  ['price', ['unit_price', 'price', 'list_price']],
  ['share price', ['price', 'share_price', 'unit_price']],
  ['stock price', ['price', 'share_price', 'unit_price']],
  ['priced', ['unit_price', 'price', 'list_price']],
  ['cost', ['cost', 'unit_cost', 'unit_price', 'price']],
  ['costing', ['unit_price', 'price', 'cost']],
  ['unit', ['quantity', 'qty', 'units']],
  ['units sold', ['quantity', 'qty', 'units']],
  ['item sold', ['quantity', 'qty', 'units']],
  ['qty', ['quantity', 'qty']],
  ['volume', ['quantity', 'qty', 'units']],
  ['signed up', ['signup_date', 'signed_up_at', 'created_at', 'registered_at']],
  ['sign up', ['signup_date', 'signed_up_at', 'created_at', 'registered_at']],
  ['joined', ['signup_date', 'joined_at', 'created_at']],
  ['registered', ['signup_date', 'registered_at', 'created_at']],
  ['email address', ['email']],
  ['location', ['city', 'country']],
  ['kind', ['category', 'type']],
  ['cat', ['category']],
  ['off', ['discount', 'discount_pct']],
  ['csat', ['satisfaction', 'csat', 'rating', 'satisfaction_score']],
  ['rating', ['satisfaction', 'rating', 'score', 'satisfaction_score']],
  ['rated', ['satisfaction', 'rating', 'score', 'satisfaction_score']],
  ['score', ['satisfaction', 'rating', 'score', 'satisfaction_score']],
  ['frt', ['first_response_minutes', 'first_response_time', 'response_minutes']],
  ['first response', ['first_response_minutes', 'first_response_time', 'response_minutes']],
  ['response time', ['first_response_minutes', 'first_response_time', 'response_minutes']],
  ['first response time', ['first_response_minutes', 'first_response_time', 'response_minutes']],
  ['hired', ['hire_date', 'hired_at']],
  ['opened', ['opened_date', 'opened_at', 'created_at']],
]);

/** Built-in synonyms for entities (tables), tried when such a table exists. */
// biome-ignore format: a word table reads best in rows
export const TABLE_SYNONYMS: ReadonlyMap<string, readonly string[]> = new Map([
  ['client', ['customers', 'clients']],
  ['buyer', ['customers']],
  ['shopper', ['customers']],
  ['user', ['users', 'customers']],
  ['customer', ['customers', 'clients', 'accounts']],
  ['account', ['accounts', 'customers']],
  ['person', ['customers', 'users']],
  ['team member', ['agents', 'staff']],
  ['rep', ['agents', 'staff']],
  ['article', ['products', 'items']],
  ['good', ['products']],
  ['purchase', ['orders', 'purchases']],
  ['basket', ['orders', 'baskets']],
  ['transaction', ['orders', 'transactions']],
  ['line item', ['order_lines', 'line_items']],
  ['order item', ['order_lines', 'order_items']],
  ['line', ['order_lines', 'lines']],
]);

/** Partial column words too vague to mean a column on their own. */
export const VAGUE_PARTS = new Set(['id', 'number', 'no', 'code', 'key', 'value', 'at', 'on', 'is', 'has', 'of', 'the', 'count', 'total']);

/** A word's lemma: lowercase, possessive dropped, English plural made singular. */
export function lemma(word: string): string {
  const w = word.toLowerCase().replace(/'s$/, '').replace(/'/g, '');
  if (w.length <= 3 || /^\d/.test(w)) return w;
  if (w === 'sales') return 'sale';
  if (w === 'people') return 'person';
  if (w === 'categories') return 'category';
  if (w === 'countries') return 'country';
  if (w === 'cities') return 'city';
  if (w.endsWith('ing') || w.endsWith('ed') || w.endsWith('ly')) return w;
  return singular(w);
}
