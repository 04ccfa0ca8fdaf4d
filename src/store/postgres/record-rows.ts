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
  private readonly rows: string[] = [];
  private readonly index: ReadonlyMap<string, number>;
  private fields: string[] = [];

  /** `fields`: the composite type's attributes in their order. */
  constructor(
    private readonly texts: CommitTexts,
    private readonly names: readonly string[],
  ) {
    this.index = new Map(names.map((n, i) => [n, i]));
  }

  beginRow(): void {
    this.fields = new Array<string>(this.names.length).fill('');
  }

  endRow(): void {
    this.rows.push(quoted(`(${this.fields.join(',')})`));
  }

  /** A string or number; null, undefined and non-finite numbers leave the field empty (NULL). */
  value(key: string, v: unknown): void {
    if (v === null || v === undefined) return;
    if (typeof v === 'number') {
      // Digits, sign, point and exponent: plain.
      if (Number.isFinite(v)) this.fields[this.at(key)] = String(v);
      return;
    }
    this.fields[this.at(key)] = field(String(v));
  }

  /** A long text, kept in the batch's CommitTexts: the row gets where it starts and how long it is. */
  longText(atKey: string, lengthKey: string, text: string): void {
    const { at, length } = this.texts.add(text);
    this.fields[this.at(atKey)] = String(at);
    this.fields[this.at(lengthKey)] = String(length);
  }

  toString(): string {
    return `{${this.rows.join(',')}}`;
  }

  private at(key: string): number {
    const i = this.index.get(key);
    if (i === undefined) throw new Error(`no field ${key} in the row type`);
    return i;
  }
}
