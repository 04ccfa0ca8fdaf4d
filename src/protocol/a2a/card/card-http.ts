/**
 * Serving an agent card over HTTP with validators (spec v1.0.1 §8.6: servers SHOULD send
 * Cache-Control and ETag, MAY send Last-Modified; clients revalidate per RFC 9111).
 * Framework-neutral: bindings pass request headers in and copy status/headers/body out.
 *
 * A card object is treated as immutable: its representation (body, ETag, Last-Modified) is
 * computed once and cached per object, so a changed card must be a new object.
 */
import { createHash } from 'node:crypto';
import type { AgentCard } from '../types.js';

export interface CardRepresentation {
  readonly body: string;
  /** strong validator: `"<base64url sha-256 of body>"` */
  readonly etag: string;
  /** IMF-fixdate (RFC 9110 §5.6.7) */
  readonly lastModified: string;
}

/** Node's IncomingHttpHeaders, a plain record, or a fetch `Headers`. */
export type CardRequestHeaders = Readonly<Record<string, string | readonly string[] | undefined>> | { get(name: string): string | null };

export interface CardCacheOptions {
  maxAgeSeconds: number;
  /** `public` for the public card; `private` for the extended card, which depends on the caller. */
  cacheScope?: 'public' | 'private';
  /** extra `Vary` field names, e.g. `A2A-Version` when the card shape depends on it */
  vary?: readonly string[];
}

export interface CardResponse {
  status: 200 | 304;
  headers: Record<string, string>;
  /** absent on 304 */
  body?: string;
}

const representations = new WeakMap<object, CardRepresentation>();

/**
 * The card's serialized form and validators. `modifiedAt` is used only the first time a given
 * card object is seen; it defaults to that moment.
 */
/** `card`: the v1.0 AgentCard, or another version's shape of it (served under `Vary: A2A-Version`). */
export function cardRepresentation(card: AgentCard | object, opts: { modifiedAt?: Date } = {}): CardRepresentation {
  const cached = representations.get(card);
  if (cached !== undefined) return cached;
  const body = JSON.stringify(card);
  const rep: CardRepresentation = Object.freeze({
    body,
    etag: `"${createHash('sha256').update(body, 'utf8').digest('base64url')}"`,
    lastModified: (opts.modifiedAt ?? new Date()).toUTCString(),
  });
  representations.set(card, rep);
  return rep;
}

/**
 * The response to a GET/HEAD of the card: 304 when the client's validators match (RFC 9110
 * §13.1.2, §13.1.3, §13.2.2), else 200 with the body.
 */
export function conditionalCardResponse(reqHeaders: CardRequestHeaders, rep: CardRepresentation, opts: CardCacheOptions): CardResponse {
  if (!Number.isInteger(opts.maxAgeSeconds) || opts.maxAgeSeconds < 0) {
    throw new RangeError(`maxAgeSeconds must be a non-negative integer, got ${String(opts.maxAgeSeconds)}`);
  }
  const headers: Record<string, string> = {
    'Cache-Control': `${opts.cacheScope ?? 'public'}, max-age=${opts.maxAgeSeconds}`,
    ETag: rep.etag,
    'Last-Modified': rep.lastModified,
  };
  if (opts.vary !== undefined && opts.vary.length > 0) headers.Vary = opts.vary.join(', ');
  if (notModified(reqHeaders, rep)) return { status: 304, headers };
  return { status: 200, headers: { 'Content-Type': 'application/json', ...headers }, body: rep.body };
}

function notModified(reqHeaders: CardRequestHeaders, rep: CardRepresentation): boolean {
  const ifNoneMatch = headerValues(reqHeaders, 'if-none-match');
  // §13.2.2: when If-None-Match is present, If-Modified-Since is not evaluated.
  if (ifNoneMatch.length > 0) return ifNoneMatchMatches(ifNoneMatch.join(','), rep.etag);
  const ifModifiedSince = headerValues(reqHeaders, 'if-modified-since');
  // §13.1.3: ignore a field with more than one member or an invalid date.
  if (ifModifiedSince.length !== 1) return false;
  const since = parseHttpDate(ifModifiedSince[0]!);
  const modified = parseHttpDate(rep.lastModified);
  return since !== undefined && modified !== undefined && modified <= since;
}

function headerValues(reqHeaders: CardRequestHeaders, name: string): string[] {
  let raw: string | readonly string[] | null | undefined;
  if (typeof (reqHeaders as { get?: unknown }).get === 'function') {
    raw = (reqHeaders as { get(name: string): string | null }).get(name);
  } else {
    const record = reqHeaders as Readonly<Record<string, string | readonly string[] | undefined>>;
    raw = record[name] ?? Object.entries(record).find(([k]) => k.toLowerCase() === name)?.[1];
  }
  if (raw === null || raw === undefined) return [];
  const list = typeof raw === 'string' ? [raw] : [...raw];
  return list.map((v) => v.trim()).filter((v) => v !== '');
}

/** §13.1.2: `*` matches any current representation; otherwise weak comparison of entity-tags. */
function ifNoneMatchMatches(field: string, etag: string): boolean {
  if (field.trim() === '*') return true;
  const ours = opaqueTag(etag);
  return parseEntityTags(field).some((tag) => tag === ours);
}

/** The opaque-tag (quotes included) of each entity-tag in a list; `W/` is dropped (weak comparison). */
function parseEntityTags(field: string): string[] {
  const tags: string[] = [];
  // etagc allows commas inside the quotes, so the list is split by scanning, not by ','.
  const re = /\s*(?:W\/)?("[^"]*")\s*(?:,|$)/gy;
  let m: RegExpExecArray | null;
  while (re.lastIndex < field.length && (m = re.exec(field)) !== null) tags.push(m[1]!);
  return tags;
}

function opaqueTag(etag: string): string {
  return etag.startsWith('W/') ? etag.slice(2) : etag;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const IMF_FIXDATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC850_DATE = /^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME_DATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/** HTTP-date (RFC 9110 §5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms) → epoch ms. */
export function parseHttpDate(value: string): number | undefined {
  const parts = matchHttpDate(value);
  if (parts === undefined) return undefined;
  const month = MONTHS.indexOf(parts.mon);
  if (month < 0) return undefined;
  const ms = Date.UTC(parts.year, month, Number(parts.day.trim()), Number(parts.hh), Number(parts.mm), Number(parts.ss));
  return Number.isNaN(ms) ? undefined : ms;
}

interface HttpDateParts {
  day: string;
  mon: string;
  year: number;
  hh: string;
  mm: string;
  ss: string;
}

function matchHttpDate(value: string): HttpDateParts | undefined {
  let m = IMF_FIXDATE.exec(value);
  if (m !== null) return { day: m[1]!, mon: m[2]!, year: Number(m[3]), hh: m[4]!, mm: m[5]!, ss: m[6]! };
  m = RFC850_DATE.exec(value);
  if (m !== null) {
    // §5.6.7: a two-digit year that looks more than 50 years in the future is in the past century.
    const yy = Number(m[3]);
    const year = 2000 + yy > new Date().getUTCFullYear() + 50 ? 1900 + yy : 2000 + yy;
    return { day: m[1]!, mon: m[2]!, year, hh: m[4]!, mm: m[5]!, ss: m[6]! };
  }
  m = ASCTIME_DATE.exec(value);
  if (m !== null) return { mon: m[1]!, day: m[2]!, hh: m[3]!, mm: m[4]!, ss: m[5]!, year: Number(m[6]) };
  return undefined;
}
