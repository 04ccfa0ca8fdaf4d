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

let cachedDay = Number.NaN;
/** `YYYY-MM-DDT` of `cachedDay` */
let cachedDate = '';

/** The UTC time `ms` (default: now) as ISO 8601 with milliseconds, exactly as `Date.prototype.toISOString` writes it. */
export function isoTimestamp(ms: number = Date.now()): string {
  if (!(ms >= 0 && ms < YEAR_10000_MS) || !Number.isInteger(ms)) return new Date(ms).toISOString();
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
  const millis = rest - seconds * 1000;
  const msText = millis < 10 ? `00${millis}` : millis < 100 ? `0${millis}` : String(millis);
  return `${cachedDate}${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${msText}Z`;
}
