/**
 * RFC 4180 CSV: fields separated by commas, records by CRLF; a field holding a comma, a double
 * quote, CR or LF is enclosed in double quotes, its quotes doubled (§2.5–2.7). Every other field is
 * written as is. A dozen lines did not justify a dependency.
 */
export type CsvCell = string | number | null | undefined;

const NEEDS_QUOTES = /[",\r\n]/;

export function csvField(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, ending in CRLF. */
export function csvRecord(cells: readonly CsvCell[]): string {
  return `${cells.map(csvField).join(',')}\r\n`;
}

/**
 * A text cell made safe to open in a spreadsheet: one starting with `=`, `+`, `-`, `@`, a tab or
 * CR would be read as a formula (OWASP "CSV injection"), so it gets a leading `'`. Only for values
 * a client chose (subjects, tool names), never for numbers the server computed.
 */
export function spreadsheetSafe(text: string | null | undefined): string | null | undefined {
  return typeof text === 'string' && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}
