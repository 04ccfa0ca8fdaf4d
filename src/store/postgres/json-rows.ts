/**
 * The text of a JSON array of rows for PostgreSQL's json_to_recordset, written field by field.
 *
 * Why not JSON.stringify of row objects (issue 26, pg80): a task row carries the task, its events
 * and push payloads as JSON text already, and stringifying them again escaped every quote in them
 * (the largest single cost of a PostgreSQL commit on the event loop, ~9 % of the main thread's
 * instructions per blocking echo); and the row objects, spread with 21 usage fields set by key,
 * fell into V8's slow dictionary mode. Here a JSON text goes into the array as the JSON value it
 * already is, for a `json` column that PostgreSQL hands back verbatim with `::text`; a field
 * without a value is left out, which json_to_recordset reads as NULL.
 *
 * PostgreSQL's json lexer refuses two things JSON.stringify can write: `\u0000` and a lone
 * surrogate escape (`\ud800`). A text with any `\u` escape (rare: control characters and lone
 * surrogates) goes as an escaped string in a second, `text` column instead, and the statement
 * takes whichever of the two is set.
 */
export class JsonRows {
  private text = '';
  private rows = 0;
  private first = true;

  get count(): number {
    return this.rows;
  }

  beginRow(): void {
    this.text += this.rows++ === 0 ? '{' : ',{';
    this.first = true;
  }

  endRow(): void {
    this.text += '}';
  }

  /** A string, number or boolean; null and undefined leave the field out (NULL). */
  value(key: string, v: unknown): void {
    if (v === null || v === undefined) return;
    if (typeof v === 'number') {
      // JSON.stringify wrote null for these; a left-out field reads as the same NULL.
      if (!Number.isFinite(v)) return;
      this.key(key);
      this.text += String(v);
    } else {
      this.key(key);
      this.text += typeof v === 'boolean' ? String(v) : JSON.stringify(v);
    }
  }

  /** JSON text written by JSON.stringify: as is under `key` (a json column), escaped under `escapedKey` when PostgreSQL could refuse it. */
  json(key: string, escapedKey: string, json: string): void {
    if (json.includes('\\u')) {
      this.value(escapedKey, json);
      return;
    }
    this.key(key);
    this.text += json;
  }

  toString(): string {
    return `[${this.text}]`;
  }

  private key(key: string): void {
    this.text += this.first ? `"${key}":` : `,"${key}":`;
    this.first = false;
  }
}
