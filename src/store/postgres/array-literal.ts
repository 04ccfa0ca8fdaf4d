/**
 * A one-dimensional array parameter written as PostgreSQL's array input text, the same text pg
 * writes for a JS array (`{"a","b",NULL}`: every element quoted, `"` and `\` backslash-escaped,
 * null and undefined as NULL), without pg's cost per element.
 *
 * Why (issue 26, pgsrv15): pg converts an array parameter element by element through its general
 * value conversion and then two regular-expression replacements, whether or not the element holds
 * anything to escape: 0.2–0.7 µs a 36-character id on this VM (scratch, loaded machine), against
 * ~0.1 µs here. The message-id lookup sends three elements a request and the timing amend five.
 * Here an element is copied as it is unless it holds a quote or a backslash (ids, names and numbers
 * never do). The statement's `$n::text[]` (or `::bigint[]`, …) reads the text as it read pg's.
 */

const QUOTES_AND_BACKSLASHES = /["\\]/g;

/** One element: a string or a number as its text, quoted; null and undefined as NULL. */
function element(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return 'NULL';
  // A number's text has neither a quote nor a backslash.
  if (typeof v === 'number') return `"${String(v)}"`;
  // Two indexOf scans cost less than one regular-expression test (scratch, ids of 36 characters).
  return v.indexOf('"') < 0 && v.indexOf('\\') < 0 ? `"${v}"` : `"${v.replace(QUOTES_AND_BACKSLASHES, '\\$&')}"`;
}

/** `values` as array input text, for a parameter cast to an array type. */
export function arrayLiteral(values: readonly (string | number | null | undefined)[]): string {
  if (values.length === 0) return '{}';
  let text = `{${element(values[0])}`;
  for (let i = 1; i < values.length; i++) text += `,${element(values[i])}`;
  return `${text}}`;
}
