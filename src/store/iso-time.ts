/**
 * `Date.parse` of a status timestamp, for every commit's `status_time` column (ListTasks sorts on
 * it), without V8's general date parser: on Node 20 that is ~3,100 machine instructions a call
 * (bench/callgrind.js, the blocking echo: 0.5 % of its main thread). A status timestamp is nearly
 * always what the core stamps, `YYYY-MM-DDTHH:MM:SS.mmmZ` (src/core/iso-timestamp.ts); that form
 * is read here by its digits. Anything else, or a field out of its range, is left to
 * `Date.parse`, so the result is always `Date.parse`'s.
 */
const ZERO = 48;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  if (month !== 2) return DAYS_IN_MONTH[month - 1]!;
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
}

/** The digits of `s` from `at` to `at + n` as a number, or -1 if one is not a digit. */
function digits(s: string, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const d = s.charCodeAt(i) - ZERO;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/** `Date.parse(text)`, exactly. */
export function parseIsoTime(text: string): number {
  if (text.length !== 24 || text[4] !== '-' || text[7] !== '-' || text[10] !== 'T' || text[13] !== ':' || text[16] !== ':' || text[19] !== '.' || text[23] !== 'Z') return Date.parse(text);
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  const ms = digits(text, 20, 3);
  // Date.UTC reads years 0–99 as 1900–1999 and rolls a 30 February over: leave those to Date.parse
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59 || ms < 0) {
    return Date.parse(text);
  }
  return daysSinceEpoch(year, month, day) * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + ms;
}

/**
 * Days from 1970-01-01 to a valid date of the proleptic Gregorian calendar (year >= 1970), which
 * `Date.UTC` gives too, but as a call into V8's runtime (~0.6 k instructions a commit: bare32).
 * Years counted from March, so a leap day ends its year; 146,097 days in 400 years.
 */
function daysSinceEpoch(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}
