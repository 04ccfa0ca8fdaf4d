/**
 * A one-dimensional array parameter written as PostgreSQL's array input text, the same text pg
 * writes for a JS array (`{"a","b",NULL}`: every element quoted, `"` and `\` backslash-escaped,
 * null and undefined as NULL), without pg's cost per element.
 *
 * Why (issue 26, pgsrv15): pg converts an array parameter element by element through its general
 * value conversion and then two regular-expression replacements, whether or not the element holds
 * anything to escape: ~1.5 µs an element on this VM. The message-id lookup sends three elements a
 * request and the timing amend five, so that was several µs of the event loop per blocking echo.
 * Here an element is scanned once and copied as it is unless it holds a quote or a backslash (ids,
 * names and numbers never do). The statement's `$n::text[]` (or `::bigint[]`, …) reads the text as
 * it read pg's.
 */

const QUOTE_OR_BACKSLASH = /["\\]/;
const QUOTES_AND_BACKSLASHES = /["\\]/g;

/** One element: a string or a number as its text, quoted; null and undefined as NULL. */
function element(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return 'NULL';
  const s = typeof v === 'number' ? String(v) : v;
  return QUOTE_OR_BACKSLASH.test(s) ? `"${s.replace(QUOTES_AND_BACKSLASHES, '\\$&')}"` : `"${s}"`;
}

/** `values` as array input text, for a parameter cast to an array type. */
export function arrayLiteral(values: readonly (string | number | null | undefined)[]): string {
  if (values.length === 0) return '{}';
  let text = `{${element(values[0])}`;
  for (let i = 1; i < values.length; i++) text += `,${element(values[i])}`;
  return `${text}}`;
}
