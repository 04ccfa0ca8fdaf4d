/**
 * `new Date(ms).toISOString()` without its cost: on Node 20 each call formats through `vsnprintf`
 * seven times, ~7,300 machine instructions, and the blocking echo stamped three of them per request
 * (3 % of its main thread, counted with bench/callgrind.js; ADR 0046). The date part changes once a
 * day, so it is formatted by `toISOString` once per day and kept; the time of day is formatted here.
 * Any time outside 1970–9999 or not a whole millisecond is left to `toISOString` itself.
 */
const DAY_MS = 86_400_000;
/** 10000-01-01T00:00:00.000Z: from here `toISOString` writes a six-digit, signed year */
const YEAR_10000_MS = 253_402_300_800_000;

const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => (i < 10 ? `0${i}` : String(i)));
/** `mmmZ` for every millisecond of a second: the one part that changes between most calls */
const MILLIS_Z = Array.from({ length: 1000 }, (_, i) => `${String(i).padStart(3, '0')}Z`);

let cachedDay = Number.NaN;
/** `YYYY-MM-DDT` of `cachedDay` */
let cachedDate = '';
let cachedSecond = Number.NaN;
/** `YYYY-MM-DDTHH:MM:SS.` of `cachedSecond` */
let cachedSecondText = '';
let lastMs = Number.NaN;
/** the whole text of `lastMs` */
let lastText = '';

/**
 * The UTC time `ms` (default: now) as ISO 8601 with milliseconds, exactly as `Date.prototype.toISOString` writes it.
 *
 * A request stamps several times within one millisecond, and nearly always within the second of
 * the call before: the same millisecond is the same string, and a new one is its second's text and
 * one of 1,000 kept endings, one concatenation. (Formatting the time of day on every call cost a
 * chain of seven concatenations, ~280 bytes of short-lived strings a stamp, issue 26's allocation
 * per request.)
 */
export function isoTimestamp(ms: number = Date.now()): string {
  if (ms === lastMs) return lastText;
  if (!(ms >= 0 && ms < YEAR_10000_MS) || !Number.isInteger(ms)) return new Date(ms).toISOString();
  const second = Math.floor(ms / 1000);
  if (second !== cachedSecond) {
    cachedSecondText = secondText(second * 1000);
    cachedSecond = second;
  }
  lastMs = ms;
  lastText = cachedSecondText + MILLIS_Z[ms - second * 1000]!;
  return lastText;
}

/** `YYYY-MM-DDTHH:MM:SS.` of a whole second `ms` in 1970–9999. */
function secondText(ms: number): string {
  const day = Math.floor(ms / DAY_MS);
  if (day !== cachedDay) {
    cachedDate = new Date(day * DAY_MS).toISOString().slice(0, 11);
    cachedDay = day;
  }
  let rest = ms - day * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${cachedDate}${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.`;
}
