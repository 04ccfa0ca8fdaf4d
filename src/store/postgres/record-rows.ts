/**
 * A commit's new task rows as one array of composite values (migration 0028's type
 * `task_commit_new_row`), which the statement reads with `unnest($1::task_commit_new_row[])`, in
 * PostgreSQL's binary format: pg sends a Buffer parameter as binary.
 *
 * Why composite values (issue 26, pg13): json_to_recordset validates the whole text, then builds a
 * hash table of every object's fields and looks each column up in it, per row; a composite value
 * is read field by field in the type's order.
 *
 * Why binary (issue 26, pg34, pgbin35): as text, the backend parses the array (`array_in`), each
 * row (`record_in`, quotes and backslashes) and each field with its type's input function (digits
 * into integers, `float8in`, `numeric_in`). In binary each field is a length and its bytes, read by
 * its type's receive function: counted with callgrind on a PostgreSQL 15 backend, 12 echo rows a
 * statement, 45.6 k instructions a row as text against 28.4 k in binary. On the event loop the
 * rows become one Buffer written field by field, with no quoting or escaping of any text.
 *
 * The format (PostgreSQL's array_send / record_send): the array is its number of dimensions (1),
 * a null flag, the element type's oid, the dimension's length and lower bound, then each element
 * as its byte length and bytes. A row is its number of columns, then each column as its type's oid,
 * its byte length (-1 for NULL) and bytes. Both receivers check the oids, so the composite type's
 * oid and its attributes' come from the database (readRowType), once per store.
 */
import type pg from 'pg';
import type { CommitTexts } from './json-rows.js';

/** The attribute types a row type may have here, by the oid PostgreSQL gives each built-in type. */
const TEXT = 25;
const INT8 = 20;
const INT4 = 23;
const FLOAT8 = 701;
const NUMERIC = 1700;
const SUPPORTED = new Set([TEXT, INT8, INT4, FLOAT8, NUMERIC]);

/** numeric's sign words (PostgreSQL's NUMERIC_POS, NUMERIC_NEG). */
const NUMERIC_POS = 0x0000;
const NUMERIC_NEG = 0x4000;

/** A composite type as the database holds it: its oid, and each attribute's name and type oid, in order. */
export interface RowType {
  readonly oid: number;
  readonly names: readonly string[];
  readonly types: readonly number[];
}

/**
 * `name`'s oid and attributes, resolved by the connection's search_path (the store's schema), as
 * the statement resolves it. The attributes must be `names`, in order, each of a type written
 * here: a schema whose type differs from what this build writes fails here, not in a row's bytes.
 */
export async function readRowType(pool: pg.Pool, name: string, names: readonly string[]): Promise<RowType> {
  const { rows } = await pool.query<{ oid: number; attname: string; atttypid: number }>(
    `select t.oid, a.attname, a.atttypid from pg_type t join pg_attribute a on a.attrelid = t.typrelid
      where t.oid = $1::text::regtype and a.attnum > 0 and not a.attisdropped order by a.attnum`,
    [name],
  );
  const found = rows.map((r) => r.attname);
  if (found.join(',') !== names.join(',')) throw new Error(`${name} has the attributes (${found.join(', ')}), not (${names.join(', ')})`);
  for (const r of rows) if (!SUPPORTED.has(Number(r.atttypid))) throw new Error(`${name}.${r.attname} is of type oid ${r.atttypid}, which the commit does not write`);
  return { oid: Number(rows[0]!.oid), names: found, types: rows.map((r) => Number(r.atttypid)) };
}

/** The array's header: dimensions, null flag, element type, the dimension's length and lower bound. */
const HEADER = 20;
/** Room a row is given before the buffer grows: ~600 bytes for an echo's new task. */
const ROW_ROOM = 1024;

export class RecordRows {
  private bytes: Buffer;
  private view: DataView;
  private used = HEADER;
  private rows = 0;
  /** where the current row's length goes */
  private rowAt = 0;
  private readonly index: ReadonlyMap<string, number>;
  /** the column value() expects next: the commit writes the fields in the type's order */
  private next = 0;
  /** how many of the row's columns are in the bytes, written or NULL */
  private filled = 0;
  /** per column, the last text written and where its bytes are: a repeat copies them (text()) */
  private readonly lastText: (string | undefined)[];
  private readonly lastAt: number[];
  private readonly lastLength: number[];

  /** `expectedRows`: how many rows the batch holds, so the buffer rarely grows. */
  constructor(
    private readonly texts: CommitTexts,
    private readonly type: RowType,
    expectedRows = 1,
  ) {
    this.index = new Map(type.names.map((n, i) => [n, i]));
    this.lastText = type.names.map(() => undefined);
    this.lastAt = type.names.map(() => 0);
    this.lastLength = type.names.map(() => 0);
    this.bytes = Buffer.allocUnsafe(HEADER + expectedRows * ROW_ROOM);
    this.view = new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.length);
  }

  beginRow(): void {
    this.room(8);
    this.rowAt = this.used;
    this.view.setInt32(this.used + 4, this.type.names.length);
    this.used += 8;
    this.next = 0;
    this.filled = 0;
  }

  /** The columns not written are NULL. */
  endRow(): void {
    this.nullsUpTo(this.type.names.length);
    this.view.setInt32(this.rowAt, this.used - this.rowAt - 4);
    this.rows++;
  }

  /**
   * A string or number; null, undefined and non-finite numbers are NULL. A number goes as the
   * column's type: an integer column refuses a fraction or a value out of its range (as its text
   * input would), and -0 is 0 (its text was "0").
   */
  value(key: string, v: unknown): void {
    const i = this.at(key);
    if (v === null || v === undefined || (typeof v === 'number' && !Number.isFinite(v))) return;
    this.nullsUpTo(i);
    const type = this.type.types[i]!;
    this.room(8);
    this.view.setInt32(this.used, type);
    const at = this.used + 4;
    this.used += 8;
    if (type === TEXT) this.text(i, typeof v === 'string' ? v : String(v));
    else if (typeof v !== 'number') throw new TypeError(`${key}: ${typeof v} for a number column`);
    else if (type === INT8) this.int8(key, v);
    else if (type === INT4) this.int4(key, v);
    else if (type === FLOAT8) this.float8(v);
    else this.numeric(v);
    this.view.setInt32(at, this.used - at - 4);
    this.filled = i + 1;
  }

  /** A long text, kept in the batch's CommitTexts: the row gets where it starts and how long it is. */
  longText(atKey: string, lengthKey: string, text: string): void {
    const { at, length } = this.texts.add(text);
    this.value(atKey, at);
    this.value(lengthKey, length);
  }

  /** The array: the Buffer the parameter sends. */
  toBuffer(): Buffer {
    const v = this.view;
    v.setInt32(0, 1);
    v.setInt32(4, 0);
    v.setUint32(8, this.type.oid);
    v.setInt32(12, this.rows);
    v.setInt32(16, 1);
    return this.bytes.subarray(0, this.used);
  }

  /** The column of `key`: the one after the last written when the fields come in order, as they do. */
  private at(key: string): number {
    let i = this.next;
    if (this.type.names[i] !== key) {
      const found = this.index.get(key);
      if (found === undefined) throw new Error(`no field ${key} in the row type`);
      // A row's columns are written one after another: an earlier one is already written or NULL.
      if (found < i) throw new Error(`field ${key} after ${this.type.names[i - 1]}: the fields go in the row type's order`);
      i = found;
    }
    this.next = i + 1;
    return i;
  }

  /** NULL for each column after those in the bytes, up to `end`. */
  private nullsUpTo(end: number): void {
    this.room((end - this.filled) * 8);
    for (let c = this.filled; c < end; c++) {
      this.view.setInt32(this.used, this.type.types[c]!);
      this.view.setInt32(this.used + 4, -1);
      this.used += 8;
    }
    this.filled = end;
  }

  /**
   * UTF-8, as text's receive function reads it (the client encoding is the server's). Buffer#write
   * for a text the column has not just had, short ones too: copying a short ASCII text a byte a
   * character in JS instead cost as much or more on the event loop (callgrind, pgbin35 in
   * docs/benchmarks.md). A text equal to the column's last one copies that one's bytes, already in
   * the buffer (copyWithin): a batch's rows repeat the agent, owner, state, lease owner, replica,
   * face, operation and skill, and the copy costs less than Buffer#write's checks, its call into
   * C++ and the encoding (callgrind, ~−3 k instructions an echo row; issue 26, pg36).
   */
  private text(column: number, s: string): void {
    if (s === this.lastText[column]) {
      const length = this.lastLength[column]!;
      this.room(length);
      const from = this.lastAt[column]!;
      this.bytes.copyWithin(this.used, from, from + length);
      this.used += length;
      return;
    }
    // A UTF-16 code unit is at most 3 UTF-8 bytes.
    this.room(s.length * 3);
    const length = this.bytes.write(s, this.used, 'utf8');
    this.lastText[column] = s;
    this.lastAt[column] = this.used;
    this.lastLength[column] = length;
    this.used += length;
  }

  private int4(key: string, v: number): void {
    if (!Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31) throw new RangeError(`${key}: ${v} is not an integer of 32 bits`);
    this.room(4);
    this.view.setInt32(this.used, v);
    this.used += 4;
  }

  /**
   * Two 32-bit halves: exact for every integer a double holds below 2^63. Past 2^53 the text the
   * column read was String(v), the shortest decimal that reads back as the double (2^62 as
   * 4611686018427388000, not 4611686018427387904), so that decimal is the integer sent.
   */
  private int8(key: string, v: number): void {
    if (!Number.isInteger(v)) throw new RangeError(`${key}: ${v} is not an integer`);
    this.room(8);
    if (Number.isSafeInteger(v)) {
      const high = Math.floor(v / 4294967296);
      this.view.setInt32(this.used, high);
      this.view.setUint32(this.used + 4, v - high * 4294967296);
    } else {
      const n = String(v).includes('e') ? undefined : BigInt(String(v));
      if (n === undefined || n < -(2n ** 63n) || n >= 2n ** 63n) throw new RangeError(`${key}: ${v} is out of the range of a bigint`);
      this.view.setBigInt64(this.used, n);
    }
    this.used += 8;
  }

  private float8(v: number): void {
    this.room(8);
    this.view.setFloat64(this.used, v === 0 ? 0 : v);
    this.used += 8;
  }

  /**
   * numeric as numeric_in reads the number's text (String(v), shortest round trip): the same
   * digits, and the same display scale (the digits after the point, less a positive exponent),
   * which the column keeps. The binary form: the count of base-10,000 digits, the weight of the
   * first (its power of 10,000), the sign, the display scale, then the digits, each aligned on the
   * decimal point.
   */
  private numeric(v: number): void {
    this.room(8);
    if (v === 0) {
      this.view.setBigUint64(this.used, 0n);
      this.used += 8;
      return;
    }
    const s = String(v < 0 ? -v : v);
    const e = s.indexOf('e');
    const mantissa = e < 0 ? s : s.slice(0, e);
    const exponent = e < 0 ? 0 : Number(s.slice(e + 1));
    const point = mantissa.indexOf('.');
    const whole = point < 0 ? mantissa : mantissa.slice(0, point);
    const fraction = point < 0 ? '' : mantissa.slice(point + 1);
    const decimals = whole + fraction;
    const scale = Math.max(0, fraction.length - exponent);
    // Decimal digits before the point; pad to a multiple of 4 so the groups align on it.
    const before = whole.length + exponent;
    const lead = (((4 - (before % 4)) % 4) + 4) % 4;
    let weight = (before + lead) / 4 - 1;
    const total = lead + decimals.length;
    const groups = Math.ceil(total / 4);
    // Leading and trailing zero groups are not digits of a numeric (make_result strips them).
    let first = 0;
    let last = groups - 1;
    while (first < last && this.group(decimals, lead, first) === 0) first++;
    while (last > first && this.group(decimals, lead, last) === 0) last--;
    weight -= first;
    const count = last - first + 1;
    this.room(count * 2);
    this.view.setUint16(this.used, count);
    this.view.setInt16(this.used + 2, weight);
    this.view.setUint16(this.used + 4, v < 0 ? NUMERIC_NEG : NUMERIC_POS);
    this.view.setUint16(this.used + 6, scale);
    this.used += 8;
    for (let g = first; g <= last; g++) {
      this.view.setUint16(this.used, this.group(decimals, lead, g));
      this.used += 2;
    }
  }

  /** The `g`th base-10,000 digit of `decimals` preceded by `lead` zeros and followed by as many as it takes. */
  private group(decimals: string, lead: number, g: number): number {
    let d = 0;
    for (let k = g * 4 - lead; k < g * 4 - lead + 4; k++) d = d * 10 + (k >= 0 && k < decimals.length ? decimals.charCodeAt(k) - 48 : 0);
    return d;
  }

  private room(n: number): void {
    if (this.used + n <= this.bytes.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.used + n, this.bytes.length * 2));
    this.bytes.copy(next, 0, 0, this.used);
    this.bytes = next;
    this.view = new DataView(next.buffer, next.byteOffset, next.length);
  }
}
