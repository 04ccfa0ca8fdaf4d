/**
 * The query string of `GET /api/v1/usage` (docs/usage.md "Usage analytics") turned into a
 * `UsageQuery` and an answer format, or an InvalidParams error naming the parameter and its valid
 * values. Everything is checked: an unknown parameter is refused too, since a misspelt filter
 * (`agnet=echo`) silently widening the answer would report someone else's numbers as the asked ones.
 * The CLI (`agentport usage`) checks its flags with the same functions before it sends anything.
 */
import { parseDuration } from '../../config/primitives.js';
import { invalidParams } from '../../protocol/a2a/errors.js';
import { USAGE_DIMENSIONS, USAGE_TIME_BUCKETS, type UsageDimension, type UsageQuery, type UsageTimeBucket } from '../../store/usage-record.js';

export const USAGE_FORMATS = ['json', 'csv', 'ndjson'] as const;
export type UsageFormat = (typeof USAGE_FORMATS)[number];

/** Media types of the formats, as sent in Content-Type and understood in Accept. */
export const USAGE_MEDIA_TYPES: Readonly<Record<UsageFormat, readonly string[]>> = {
  json: ['application/json'],
  csv: ['text/csv'],
  ndjson: ['application/x-ndjson', 'application/ndjson'],
};

export const DEFAULT_SINCE = '7d';
export const DEFAULT_LIMIT = 1000;
export const MAX_LIMIT = 10_000;

const SINGLE = ['by', 'bucket', 'since', 'until', 'limit', 'format'] as const;
const KNOWN: ReadonlySet<string> = new Set<string>([...SINGLE, ...USAGE_DIMENSIONS]);

/** a duration with its unit (`7d`): a bare number is no instant */
const RELATIVE = /^\d{1,6}[smhdw]$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

export interface UsageRequest {
  query: UsageQuery;
  format: UsageFormat;
}

const list = (values: readonly string[]) => values.join(', ');

/**
 * `7d`, `12h`, `30m`, `2w`, `90s` (that long before `now`), or an ISO 8601 date or date-time (a
 * date alone is its UTC midnight; a date-time without an offset is UTC). Undefined when neither.
 */
export function parseInstant(text: string, now: number): number | undefined {
  const t = text.trim();
  if (RELATIVE.test(t)) return now - parseDuration(t)!;
  if (!ISO_DATE.test(t)) return undefined;
  // Date.parse reads a date-time without an offset as local time; usage is reported in UTC.
  const utc = /T|\s/.test(t) && !/(Z|[+-]\d{2}:?\d{2})$/i.test(t) ? `${t.replace(' ', 'T')}Z` : t;
  const at = Date.parse(utc);
  return Number.isFinite(at) ? at : undefined;
}

/** `agent,tool` → the dimensions, each known and named once. Throws InvalidParams. */
export function parseDimensions(field: string, text: string): UsageDimension[] {
  const out: UsageDimension[] = [];
  for (const raw of text.split(',')) {
    const d = raw.trim();
    if (d === '') continue;
    if (!(USAGE_DIMENSIONS as readonly string[]).includes(d)) throw invalidParams(field, `unknown dimension '${d}'; valid: ${list(USAGE_DIMENSIONS)}`);
    if (out.includes(d as UsageDimension)) throw invalidParams(field, `dimension '${d}' is named twice`);
    out.push(d as UsageDimension);
  }
  return out;
}

/** The values of a filter: comma lists, repeatable; an empty item matches records without a value. */
export function filterValues(values: readonly string[]): (string | null)[] {
  const out: (string | null)[] = [];
  for (const v of values.flatMap((x) => x.split(','))) {
    const item = v.trim() === '' ? null : v.trim();
    if (!out.includes(item)) out.push(item);
  }
  return out;
}

export function parseBucket(field: string, text: string): UsageTimeBucket {
  if (!(USAGE_TIME_BUCKETS as readonly string[]).includes(text)) throw invalidParams(field, `unknown bucket '${text}'; valid: ${list(USAGE_TIME_BUCKETS)}`);
  return text as UsageTimeBucket;
}

export function parseFormat(field: string, text: string): UsageFormat {
  if (!(USAGE_FORMATS as readonly string[]).includes(text)) throw invalidParams(field, `unknown format '${text}'; valid: ${list(USAGE_FORMATS)}`);
  return text as UsageFormat;
}

/** The format an Accept header prefers among ours (highest q first, then the order given); json when none. */
export function formatFromAccept(accept: string | undefined): UsageFormat {
  if (!accept) return 'json';
  const ranges = accept
    .split(',')
    .map((r, i) => {
      const [type, ...params] = r.split(';').map((p) => p.trim().toLowerCase());
      const q = params.find((p) => p.startsWith('q='));
      return { type: type ?? '', q: q === undefined ? 1 : Number(q.slice(2)), i };
    })
    .filter((r) => r.q > 0 && Number.isFinite(r.q))
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const r of ranges) {
    for (const f of USAGE_FORMATS) if (USAGE_MEDIA_TYPES[f].includes(r.type)) return f;
    if (r.type === '*/*' || r.type === 'application/*') return 'json';
  }
  return 'json';
}

/** Parses the query string of a request (`URLSearchParams` keeps repeated parameters). Throws InvalidParams. */
export function parseUsageParams(params: URLSearchParams, accept: string | undefined, now: number): UsageRequest {
  for (const name of new Set(params.keys())) {
    if (!KNOWN.has(name)) throw invalidParams(name, `unknown parameter; valid: ${list([...SINGLE, ...USAGE_DIMENSIONS])}`);
    if ((SINGLE as readonly string[]).includes(name) && params.getAll(name).length > 1) throw invalidParams(name, 'given more than once');
  }
  const one = (name: (typeof SINGLE)[number]) => params.get(name) ?? undefined;

  const groupBy = parseDimensions('by', one('by') ?? '');
  const bucketText = one('bucket');
  const bucket = bucketText === undefined ? undefined : parseBucket('bucket', bucketText);

  const sinceText = one('since') ?? DEFAULT_SINCE;
  const from = parseInstant(sinceText, now);
  if (from === undefined) throw invalidParams('since', `'${sinceText}' is neither a duration (7d, 12h, 30m, 2w) nor an ISO 8601 date-time`);
  const untilText = one('until');
  const to = untilText === undefined ? now : parseInstant(untilText, now);
  if (to === undefined) throw invalidParams('until', `'${untilText}' is neither a duration (7d, 12h, 30m, 2w) nor an ISO 8601 date-time`);
  if (from >= to) throw invalidParams('since', `must be before until (${new Date(from).toISOString()} is not before ${new Date(to).toISOString()})`);

  const limitText = one('limit');
  const limit = limitText === undefined ? DEFAULT_LIMIT : Number(limitText);
  if (!/^\d+$/.test(limitText ?? '1') || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw invalidParams('limit', `must be an integer from 1 to ${MAX_LIMIT}, not '${limitText}'`);
  }

  const formatText = one('format');
  const format = formatText === undefined ? formatFromAccept(accept) : parseFormat('format', formatText);

  const filters: Partial<Record<UsageDimension, (string | null)[]>> = {};
  for (const d of USAGE_DIMENSIONS) {
    const values = params.getAll(d);
    if (values.length) filters[d] = filterValues(values);
  }
  return { query: { groupBy, ...(bucket ? { bucket } : {}), filters, from, to, limit }, format };
}
