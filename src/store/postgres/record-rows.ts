/**
 * A commit's new task rows as one array of composite values (migration 0028's type
 * `task_commit_new_row`), which the statement reads with `unnest($1::task_commit_new_row[])`.
 *
 * Why not JSON like the other rows (issue 26, pg13): json_to_recordset validates the whole text,
 * then builds a hash table of every object's fields and looks each column up in it, per row. A
 * composite value is read field by field in the type's order with each column's own input
 * function. Counted with callgrind on a PostgreSQL 15 backend, 12 echo task rows a statement:
 * 187 k instructions a row to decode as JSON, 91 k as composite values (the insert itself ~190 k).
 *
 * The text format (PostgreSQL's array and composite input): a row is `(f1,f2,…)` and an empty
 * field is NULL. A field of only letters, digits and `_ . : / + @ -` is written as it is; any
 * other is written in double quotes with `"` and `\` escaped by a backslash, so any string (a
 * client's context id or message id among them) stays one field. The array quotes each row and
 * escapes it the same way once more.
 */
import type { CommitTexts } from './json-rows.js';

/** Characters that never need quoting in a composite field or an array element (no delimiter, quote, backslash or space). */
const PLAIN = /^[\w.:/+@-]+$/;
const QUOTE_OR_BACKSLASH = /["\\]/;

/** `s` in double quotes, `"` and `\` backslash-escaped: one field or one array element, whatever it holds. */
function quoted(s: string): string {
  return QUOTE_OR_BACKSLASH.test(s) ? `"${s.replace(/["\\]/g, '\\$&')}"` : `"${s}"`;
}

/**
 * A field as composite input reads it back exactly: ids, states and names as they are (the common
 * case: no regular expression replacement, no second escaping of the row for the array), anything
 * else quoted; an empty string must be quoted, since an empty field is NULL.
 */
function field(s: string): string {
  return PLAIN.test(s) ? s : quoted(s);
}

export class RecordRows {
  private text = '';
  private rows = 0;
  private readonly index: ReadonlyMap<string, number>;
  private readonly fields: string[];
  /** the row holds a quoted field, so it may hold `"` or `\`: it must be escaped as an array element */
  private escape = false;
  /** the column value() expects next: the commit writes the fields in the type's order */
  private next = 0;
  /** per column, the last value written and its field text (see value()) */
  private readonly lastValue: unknown[];
  private readonly lastField: string[];

  /** `names`: the composite type's attributes in their order. */
  constructor(
    private readonly texts: CommitTexts,
    private readonly names: readonly string[],
  ) {
    this.index = new Map(names.map((n, i) => [n, i]));
    this.fields = new Array<string>(names.length).fill('');
    this.lastValue = new Array<unknown>(names.length).fill(undefined);
    this.lastField = new Array<string>(names.length).fill('');
  }

  beginRow(): void {
    this.fields.fill('');
    this.escape = false;
    this.next = 0;
  }

  /**
   * A row whose fields were all written plain holds no quote or backslash (issue 26, pg33): it
   * goes into the array in quotes as it is, without a scan of its text for characters to escape.
   */
  endRow(): void {
    const row = `(${this.fields.join(',')})`;
    this.text += `${this.rows++ === 0 ? '' : ','}${this.escape ? quoted(row) : `"${row}"`}`;
  }

  /**
   * A string or number; null, undefined and non-finite numbers leave the field empty (NULL).
   *
   * A batch's rows repeat most of their values column by column (the agent, the owner, the state,
   * the replica, timestamps to the millisecond), so the field text of a column's last value is
   * reused when the next row's value equals it: no second test for plain characters, and no second
   * conversion of a timestamp, which as a number above 2^31 V8 writes by its floating-point
   * algorithm (issue 26, pg33).
   */
  value(key: string, v: unknown): void {
    const i = this.at(key);
    if (v === null || v === undefined) return;
    let text: string;
    if (v === this.lastValue[i]) text = this.lastField[i]!;
    else if (typeof v === 'number') {
      // Digits, sign, point and exponent: plain.
      if (!Number.isFinite(v)) return;
      text = String(v);
    } else text = field(String(v));
    this.lastValue[i] = v;
    this.lastField[i] = text;
    // A quoted field starts with its quote; a plain one never does.
    if (text.charCodeAt(0) === 34) this.escape = true;
    this.fields[i] = text;
  }

  /** A long text, kept in the batch's CommitTexts: the row gets where it starts and how long it is. */
  longText(atKey: string, lengthKey: string, text: string): void {
    const { at, length } = this.texts.add(text);
    this.fields[this.at(atKey)] = String(at);
    this.fields[this.at(lengthKey)] = String(length);
  }

  toString(): string {
    return `{${this.text}}`;
  }

  /** The column of `key`: the one after the last written when the fields come in order, as they do. */
  private at(key: string): number {
    let i = this.next;
    if (this.names[i] !== key) {
      const found = this.index.get(key);
      if (found === undefined) throw new Error(`no field ${key} in the row type`);
      i = found;
    }
    this.next = i + 1;
    return i;
  }
}
