/**
 * The parameters of the PostgreSQL commit: JSON arrays of rows for json_to_recordset, written field
 * by field, and every long text of the batch (task JSON, events JSON, push payloads) as the bytes of
 * one bytea parameter that a row points into by offset and length.
 *
 * Why (issue 26, pg80): the rows were JSON.stringify'd objects holding those texts, themselves
 * JSON, as strings. Stringifying escaped every quote in them, the largest single cost of a
 * PostgreSQL commit on the event loop (~9 % of the main thread's instructions per blocking echo),
 * and PostgreSQL unescaped them again; the row objects, spread with 21 usage fields set by key,
 * fell into V8's slow dictionary mode besides. A Buffer parameter goes over the wire in binary as
 * it is (no escaping on either side), and `convert_from(substring(bytes from at for len), 'UTF8')`
 * cuts a text out of it in PostgreSQL at the cost of a copy and a UTF-8 check: per task 3 µs of
 * backend CPU against 7 µs for escaped strings and 12 µs for the same texts as nested json values
 * (measured on PostgreSQL 15, a task and its events of ~500 bytes each).
 */

/**
 * The batch's long texts, one after another: each row names its texts by 1-based byte offset and length.
 *
 * Each text is encoded once, straight into the parameter's bytes (issue 26, pg33): measuring its
 * UTF-8 length, joining the texts and encoding the joined string walked every character three
 * times on the event loop. A UTF-16 code unit is at most 3 UTF-8 bytes (a surrogate pair, two
 * units, is 4), so room for three bytes a unit always holds the text; the bytes past the last text
 * are never sent.
 */
export class CommitTexts {
  private bytes: Buffer = Buffer.alloc(0);
  private used = 0;

  /** Adds `text`; returns where its UTF-8 bytes start (1-based, as SQL's substring counts) and how many there are. */
  add(text: string): { at: number; length: number } {
    const room = this.used + text.length * 3;
    if (room > this.bytes.length) this.grow(room);
    const length = this.bytes.write(text, this.used, 'utf8');
    const at = this.used + 1;
    this.used += length;
    return { at, length };
  }

  toBuffer(): Buffer {
    return this.bytes.subarray(0, this.used);
  }

  private grow(room: number): void {
    // Doubling: a batch of n texts copies its bytes O(log n) times; 16 KiB holds a ten-task echo batch.
    const next = Buffer.allocUnsafe(Math.max(room, this.bytes.length * 2, 16_384));
    this.bytes.copy(next, 0, 0, this.used);
    this.bytes = next;
  }
}

/** A JSON array of rows; a field without a value is left out, which json_to_recordset reads as NULL. */
export class JsonRows {
  private text = '';
  private rows = 0;
  private first = true;

  constructor(private readonly texts: CommitTexts) {}

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

  /** A long text, kept in the batch's CommitTexts: the row gets where it starts and how long it is. */
  longText(atKey: string, lengthKey: string, text: string): void {
    const { at, length } = this.texts.add(text);
    this.key(atKey);
    this.text += String(at);
    this.key(lengthKey);
    this.text += String(length);
  }

  toString(): string {
    return `[${this.text}]`;
  }

  private key(key: string): void {
    this.text += this.first ? `"${key}":` : `,"${key}":`;
    this.first = false;
  }
}
