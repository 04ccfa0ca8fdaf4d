/**
 * The PostgreSQL commit's parameter texts, written without a database: RecordRows' array of
 * composite values (src/store/postgres/record-rows.ts) and CommitTexts' bytes
 * (src/store/postgres/json-rows.ts). pg33 made both cheaper on the event loop (a column's last
 * field text reused, a row escaped only when it holds a quoted field, each text encoded once
 * straight into the bytes); what they produce must stay exactly what the plain algorithm
 * produces: every field through the plain-or-quoted rule, every row quoted and escaped, the texts'
 * UTF-8 bytes one after another.
 */
import { describe, expect, it } from 'vitest';
import { CommitTexts } from '../../../src/store/postgres/json-rows.js';
import { RecordRows } from '../../../src/store/postgres/record-rows.js';

const NAMES = ['id', 'owner', 'n', 'at', 'len', 'note'] as const;

/** The reference: a field as composite input reads it back, a row as an array element. */
function quoted(s: string): string {
  return `"${s.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}
function referenceField(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  const s = String(v);
  return /^[\w.:/+@-]+$/.test(s) ? s : quoted(s);
}

type Row = Partial<Record<(typeof NAMES)[number], unknown>> & { text?: string };

function written(rows: Row[], texts = new CommitTexts()): string {
  const r = new RecordRows(texts, NAMES);
  for (const row of rows) {
    r.beginRow();
    r.value('id', row.id);
    r.value('owner', row.owner);
    r.value('n', row.n);
    if (row.text !== undefined) r.longText('at', 'len', row.text);
    r.value('note', row.note);
    r.endRow();
  }
  return r.toString();
}

function reference(rows: Row[]): string {
  let next = 1;
  const out = rows.map((row) => {
    const fields = [referenceField(row.id), referenceField(row.owner), referenceField(row.n), '', '', referenceField(row.note)];
    if (row.text !== undefined) {
      const length = Buffer.byteLength(row.text, 'utf8');
      fields[3] = String(next);
      fields[4] = String(length);
      next += length;
    }
    return quoted(`(${fields.join(',')})`);
  });
  return `{${out.join(',')}}`;
}

describe('RecordRows: the array text of a batch', () => {
  it('writes runs of equal values, changes after them, quoted and plain, numbers and NULLs as the plain algorithm does', () => {
    const rows: Row[] = [
      { id: 't1', owner: 'a "b"', n: 1_800_000_000_000, note: 'x', text: 'é' },
      { id: 't2', owner: 'a "b"', n: 1_800_000_000_000, note: null, text: 'hello' },
      { id: 't3', owner: 'plain', n: 1_800_000_000_001, note: 'x' },
      { id: 't4', owner: 'plain', n: Number.POSITIVE_INFINITY, note: 'back\\slash' },
      { id: 't5', owner: 'plain', n: Number.POSITIVE_INFINITY, note: 'back\\slash', text: '😀' },
      { id: 't6', owner: '', n: 0.5, note: 'NULL' },
      { id: 't7', owner: 'a "b"', n: 0.5, note: 'a,b)(c' },
    ];
    expect(written(rows)).toBe(reference(rows));
  });

  it('escapes a row only for its own quoted fields: a plain row after a quoted one stays as it is', () => {
    const rows: Row[] = [
      { id: 'q', owner: 'with space' },
      { id: 'p', owner: 'plain' },
    ];
    expect(written(rows)).toBe('{"(q,\\"with space\\",,,,)","(p,plain,,,,)"}');
  });

  it('takes the fields in any order and refuses a name the type does not have', () => {
    const texts = new CommitTexts();
    const r = new RecordRows(texts, NAMES);
    r.beginRow();
    r.value('note', 'last');
    r.value('id', 'first');
    r.value('n', 3);
    r.endRow();
    expect(r.toString()).toBe('{"(first,,3,,,last)"}');
    expect(() => r.value('nope', 1)).toThrow('no field nope');
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
