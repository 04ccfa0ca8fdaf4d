/**
 * The span writer's one-call forms (`head`: a span's fixed values; `pair`: an attribute's key and
 * value) must write exactly what the value-by-value calls write — the same numbers, in the same
 * order, the same text and the same array values — from any starting room, including the rooms
 * where a head or a pair crosses the end of the buffer and must grow it by more than one number.
 */
import type { AttributeValue } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { idReference } from '../../src/observability/tracing/packed-spans.js';
import { PackedSpansWriter } from '../../src/observability/tracing/packed-spans-writer.js';
import { ID_BLOCK_BYTES, idAt, newSpanId, newTraceId } from '../../src/observability/tracing/span-ids.js';

type Head = [string, number, string, string, string, string, number, number, number, number, number, string];

const HEADS: Head[] = [
  ['POST', 2, '0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331', 'vendor=abc', 'a1b2c3d4e5f60718', 1, 0, 12.5, 14.25, 2, 'disk full'],
  // a root: no trace state, no parent, no status message (empty strings add no text)
  ['core SendMessage', 1, '4bf92f3577b34da6a3ce929d0e0e4736', '00f067aa0ba902b7', '', '', 0, 3, 1e9 + 0.125, 1e9 + 7, 0, ''],
  ['日本語 🙂', 0, 'ffffffffffffffffffffffffffffffff', '0000000000000001', '', 'ffffffffffffffff', 0, 1, 0, 0, 1, 'a\ud800b'],
];

const PAIRS: Array<[string, AttributeValue]> = [
  ['http.request.method', 'POST'],
  ['http.response.status_code', 200],
  ['agentport.aborted', true],
  ['ok', false],
  ['empty', ''],
  ['', 'a value under an empty key'],
  ['', 7],
  ['tags', ['a', 'b']],
  ['ratio', -0.5],
  ['negative', -4],
  ['big', Number.MAX_SAFE_INTEGER],
];

/** Everything a writer holds, as plain values. */
const contents = (w: PackedSpansWriter) => ({ numbers: [...w.numbers.subarray(0, w.length)], text: w.text, others: w.others });

/** The heads and pairs, interleaved, written with the one-call forms or value by value. */
function write(w: PackedSpansWriter, oneCall: boolean): void {
  for (const h of HEADS) {
    if (oneCall) w.head(...h);
    else {
      const [name, kind, traceId, spanId, traceState, parent, remote, scope, start, end, status, message] = h;
      w.str(name);
      w.num(kind);
      w.str(traceId);
      w.str(spanId);
      w.num(1);
      w.str(traceState);
      w.str(parent);
      w.num(remote);
      w.num(scope);
      w.num(start);
      w.num(end);
      w.num(status);
      w.str(message);
    }
    for (const [k, v] of PAIRS) {
      if (oneCall) w.pair(k, v);
      else {
        w.str(k);
        w.value(v);
      }
    }
  }
}

describe('the packed span writer', () => {
  it.each([1, 2, 3, 12, 13, 14, 15, 16, 17, 40, 1024])('writes a head and a pair in one call as value by value, from a room of %i numbers', (room) => {
    const byValue = new PackedSpansWriter(room);
    write(byValue, false);
    const oneCall = new PackedSpansWriter(room);
    write(oneCall, true);
    expect(contents(oneCall)).toEqual(contents(byValue));
    // what the value-by-value writer holds, spelled out for the first head and its first two pairs
    const [name, kind, traceId, spanId, traceState, parent] = HEADS[0]!;
    expect(contents(oneCall).numbers.slice(0, 21)).toEqual([name.length, kind, traceId.length, spanId.length, 1, traceState.length, parent.length, 1, 0, 12.5, 14.25, 2, 9, 19, 4, 25, -1, 200, 17, -3, 2]);
    expect(oneCall.text.startsWith(`POST${traceId}${spanId}vendor=abc${parent}disk fullhttp.request.methodPOSThttp.response.status_codeagentport.aborted`)).toBe(true);
    expect(oneCall.others).toEqual([
      ['a', 'b'],
      ['a', 'b'],
      ['a', 'b'],
    ]);
  });

  it('grows past every head and pair: a head written at each distance from the end of its room', () => {
    for (let filled = 0; filled < 16; filled++) {
      const byValue = new PackedSpansWriter(16);
      const oneCall = new PackedSpansWriter(16);
      for (let i = 0; i < filled; i++) {
        byValue.num(i);
        oneCall.num(i);
      }
      byValue.str('span');
      byValue.num(1);
      for (const s of ['t'.repeat(32), 's'.repeat(16)]) byValue.str(s);
      for (const v of [1, 0, 0, 0, 0, 5, 6, 0]) byValue.num(v);
      byValue.str('');
      oneCall.head('span', 1, 't'.repeat(32), 's'.repeat(16), '', '', 0, 0, 5, 6, 0, '');
      expect(contents(oneCall)).toEqual(contents(byValue));
      expect(oneCall.length).toBe(filled + 13);
    }
  });

  it.each([1, 16, 1024])('holds its numbers in a buffer of its own, transferred whole to the export thread (room %i, then grown)', (start) => {
    const w = new PackedSpansWriter(start);
    for (let i = 0; i < 3; i++) {
      w.head(...HEADS[i]!);
      for (const [k, v] of PAIRS) w.pair(k, v);
    }
    const written = [...w.numbers.subarray(0, w.length)];
    const buffer = w.numbers.buffer;
    // not a slice of Buffer's shared pool: the buffer is the numbers' room and nothing else
    expect(w.numbers.byteOffset).toBe(0);
    expect(buffer.byteLength).toBe(w.numbers.length * 8);
    const moved = structuredClone(buffer, { transfer: [buffer] });
    // transferred, not copied: the writer's side is detached
    expect(buffer.byteLength).toBe(0);
    expect([...new Float64Array(moved, 0, written.length)]).toEqual(written);
  });

  it('writes each id the recorder made as a reference to its bytes, across the blocks of a part, whichever block the last id was in', () => {
    const w = new PackedSpansWriter(16);
    const heads: Array<{ trace: string; span: string; parent: string; at: number }> = [];
    // a trace id from a block older than the first span's: the part then holds its blocks out of sequence order
    const old = newTraceId();
    const oldAt = idAt;
    while (Math.floor(idAt / ID_BLOCK_BYTES) === Math.floor(oldAt / ID_BLOCK_BYTES)) newSpanId();
    let trace = newTraceId();
    let traceAt = idAt;
    let parent = newSpanId();
    let parentAt = idAt;
    // ~2.5 blocks of ids: spans whose three ids lie in one block, in two, the trace's in an older one
    for (let i = 0; i < (5 * ID_BLOCK_BYTES) / 16; i++) {
      if (i % 50 === 0) {
        trace = newTraceId();
        traceAt = idAt;
      }
      const span = newSpanId();
      const spanAt = idAt;
      const useOld = i % 7 === 1;
      heads.push({ trace: useOld ? old : trace, span, parent, at: w.length });
      w.head('s', 1, useOld ? old : trace, span, '', parent, 0, 0, 1, 2, 0, '', useOld ? oldAt : traceAt, spanAt, parentAt);
      if (i % 3 === 0) {
        parent = span;
        parentAt = spanAt;
      }
    }
    expect(w.blocks.length).toBeGreaterThanOrEqual(4);
    expect(w.text).toBe('s'.repeat(heads.length));
    const id = (ref: number, bytes: number) => {
      expect(ref).toBeLessThan(0);
      const { block, offset } = idReference(ref);
      return Buffer.from(w.blocks[block]!.subarray(offset, offset + bytes)).toString('hex');
    };
    for (const h of heads) {
      expect(id(w.numbers[h.at + 2]!, 16)).toBe(h.trace);
      expect(id(w.numbers[h.at + 3]!, 8)).toBe(h.span);
      expect(id(w.numbers[h.at + 6]!, 8)).toBe(h.parent);
    }
  });
});
