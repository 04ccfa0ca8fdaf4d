/**
 * The PostgreSQL commit's parameter bytes, written without a database: RecordRows' array of
 * composite values in binary (src/store/postgres/record-rows.ts; what PostgreSQL reads from it:
 * commit-binary-rows.test.ts) and CommitTexts' bytes (src/store/postgres/json-rows.ts, which pg33
 * made encode each text once, straight into the bytes: they must stay the texts' UTF-8 bytes one
 * after another).
 */
import { describe, expect, it } from 'vitest';
import { CommitTexts } from '../../../src/store/postgres/json-rows.js';
import { RecordRows, type RowType } from '../../../src/store/postgres/record-rows.js';

/** A row type as readRowType answers it: text, int8, int4, int4, int4, numeric, float8. */
const TYPE: RowType = { oid: 987654, names: ['id', 'owner', 'n', 'at', 'len', 'cost', 'ms'], types: [25, 20, 23, 23, 23, 1700, 701] };

/** A column as array_recv and record_recv read it: its type oid and bytes (null for NULL). */
interface Column {
  type: number;
  bytes: Buffer | null;
}

/** The array's header and each element's columns, read as PostgreSQL reads them; every length must add up. */
function decoded(b: Buffer): { header: number[]; rows: Column[][] } {
  const header = [b.readInt32BE(0), b.readInt32BE(4), b.readUInt32BE(8), b.readInt32BE(12), b.readInt32BE(16)];
  let at = 20;
  const rows: Column[][] = [];
  for (let r = 0; r < header[3]!; r++) {
    const length = b.readInt32BE(at);
    const end = at + 4 + length;
    at += 4;
    const columns: Column[] = [];
    const count = b.readInt32BE(at);
    at += 4;
    for (let c = 0; c < count; c++) {
      const type = b.readUInt32BE(at);
      const n = b.readInt32BE(at + 4);
      at += 8;
      columns.push({ type, bytes: n < 0 ? null : b.subarray(at, at + n) });
      if (n > 0) at += n;
    }
    expect(at).toBe(end);
    rows.push(columns);
  }
  expect(at).toBe(b.length);
  return { header, rows };
}

describe('RecordRows: the array in binary', () => {
  it('writes the header, each row as its length and columns, each column as its type, length and bytes, the rest NULL', () => {
    const texts = new CommitTexts();
    texts.add('before');
    const r = new RecordRows(texts, TYPE);
    r.beginRow();
    r.value('id', 'tâche 😀');
    r.value('owner', -1_800_000_000_001);
    r.longText('at', 'len', 'é');
    r.value('cost', -12.5);
    r.endRow();
    r.beginRow();
    r.value('id', '');
    r.value('n', -0);
    r.value('cost', 0);
    r.value('ms', -0);
    r.endRow();
    const { header, rows } = decoded(r.toBuffer());
    expect(header).toEqual([1, 0, 987654, 2, 1]);
    expect(rows.map((row) => row.map((c) => c.type))).toEqual([TYPE.types, TYPE.types]);
    const [first, second] = rows as [Column[], Column[]];
    expect(first[0]!.bytes!.toString('utf8')).toBe('tâche 😀');
    expect(first[1]!.bytes!.readBigInt64BE(0)).toBe(-1_800_000_000_001n);
    expect(first[2]!.bytes).toBeNull();
    expect([first[3]!.bytes!.readInt32BE(0), first[4]!.bytes!.readInt32BE(0)]).toEqual([7, 2]);
    // -12.5: one digit group before the point (12) and one after (5000), weight 0, negative, scale 1.
    expect([...first[5]!.bytes!].map((x) => x.toString(16).padStart(2, '0')).join('')).toBe('0002000040000001000c1388');
    expect(first[6]!.bytes).toBeNull();
    expect(second[0]!.bytes!.length).toBe(0);
    expect(second[1]!.bytes).toBeNull();
    expect(second[2]!.bytes!.readInt32BE(0)).toBe(0);
    expect(Object.is(second[2]!.bytes!.readInt32BE(0), 0)).toBe(true);
    expect([...second[5]!.bytes!]).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(Object.is(second[6]!.bytes!.readDoubleBE(0), 0)).toBe(true);
  });

  it('writes NULL for null, undefined and numbers that are not finite', () => {
    const r = new RecordRows(new CommitTexts(), TYPE);
    r.beginRow();
    r.value('id', null);
    r.value('owner', undefined);
    r.value('n', Number.NaN);
    r.value('cost', Number.POSITIVE_INFINITY);
    r.value('ms', Number.NEGATIVE_INFINITY);
    r.endRow();
    expect(decoded(r.toBuffer()).rows[0]!.map((c) => c.bytes)).toEqual([null, null, null, null, null, null, null]);
  });

  it('grows past its first room and keeps every row whole', () => {
    const r = new RecordRows(new CommitTexts(), TYPE, 1);
    const long = '€'.repeat(700);
    for (let i = 0; i < 40; i++) {
      r.beginRow();
      r.value('id', `${i} ${long}`);
      r.value('cost', i / 7);
      r.endRow();
    }
    const { rows } = decoded(r.toBuffer());
    expect(rows.map((row) => row[0]!.bytes!.toString('utf8'))).toEqual(Array.from({ length: 40 }, (_, i) => `${i} ${long}`));
  });

  it("writes a text equal to its column's last one as the same bytes: runs, a NULL between, growth, a change after a run", () => {
    // Three text columns and a number between: each column's repeat is its own (issue 26, pg36).
    const type: RowType = { oid: 42, names: ['agent', 'n', 'owner', 'state'], types: [25, 23, 25, 25] };
    const r = new RecordRows(new CommitTexts(), type, 1);
    const long = `lang ${'ß€'.repeat(40)}`;
    const expected: (string | null)[][] = [];
    const rows: [string, string | null, string][] = [];
    for (let i = 0; i < 30; i++) {
      // Runs of equal values, some equal only by content (built anew), a NULL in a run, long and
      // multi-byte texts, a lone surrogate, the empty text, and a value the next column had.
      const agent = i < 12 ? 'echo' : i < 20 ? `ec${'ho'}` : 'écho 😀';
      const owner = i % 7 === 3 ? null : i < 15 ? long : `x\ud800y ${i < 25 ? 'a' : 'b'}`;
      const state = i % 5 === 0 ? '' : i < 10 ? 'echo' : 'TASK_STATE_COMPLETED';
      rows.push([agent, owner, state]);
    }
    for (const [agent, owner, state] of rows) {
      r.beginRow();
      r.value('agent', agent);
      r.value('n', 7);
      r.value('owner', owner);
      r.value('state', state);
      r.endRow();
      const hex = (v: string | null) => (v === null ? null : Buffer.from(v, 'utf8').toString('hex'));
      expected.push([hex(agent), '7', hex(owner), hex(state)]);
    }
    const got = decoded(r.toBuffer()).rows.map((row) => row.map((c, k) => (c.bytes === null ? null : k === 1 ? String(c.bytes.readInt32BE(0)) : c.bytes.toString('hex'))));
    expect(got).toEqual(expected);
  });

  it('refuses a name the type does not have, a field before one written, a text for a number column and a fraction for an integer one', () => {
    const r = new RecordRows(new CommitTexts(), TYPE);
    r.beginRow();
    expect(() => r.value('nope', 1)).toThrow('no field nope');
    r.value('n', 3);
    expect(() => r.value('id', 'late')).toThrow('field id after n');
    expect(() => r.value('cost', '12')).toThrow(TypeError);
    r.beginRow();
    expect(() => r.value('at', 1.5)).toThrow(RangeError);
  });
});

describe('CommitTexts: the bytes the rows point into', () => {
  it('holds every text as its UTF-8 bytes at the offset and length it answered, past the first 16 KiB', () => {
    const texts = new CommitTexts();
    const samples = ['plain', 'é ü', '😀 pair', 'x\ud800y lone surrogate', '', 'ascii '.repeat(900), '€'.repeat(3000), 'nul\u0000end'];
    const added: { text: string; at: number; length: number }[] = [];
    for (let i = 0; i < 12; i++) for (const text of samples) added.push({ text, ...texts.add(text) });
    const bytes = texts.toBuffer();
    const expected = Buffer.concat(added.map((a) => Buffer.from(a.text, 'utf8')));
    expect(bytes.length).toBeGreaterThan(16_384 * 4);
    expect(bytes.equals(expected)).toBe(true);
    for (const a of added) {
      expect(a.length).toBe(Buffer.byteLength(a.text, 'utf8'));
      expect(bytes.subarray(a.at - 1, a.at - 1 + a.length).toString('utf8')).toBe(Buffer.from(a.text, 'utf8').toString('utf8'));
    }
  });

  it('has room for a first text of three-byte characters longer than its first allocation', () => {
    const texts = new CommitTexts();
    const text = '€'.repeat(20_000);
    expect(texts.add(text)).toEqual({ at: 1, length: 60_000 });
    expect(texts.toBuffer().toString('utf8')).toBe(text);
  });

  it('is empty bytes before any text', () => {
    expect(new CommitTexts().toBuffer().length).toBe(0);
  });
});
