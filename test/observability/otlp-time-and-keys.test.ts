/**
 * Two pieces of the OTLP encoders whose every input the request tests against the SDK cannot
 * reach: a time written as its fixed64 count of nanoseconds (`nanosAt`: the recorded clock sets only
 * the seconds' bits of today), and the order a span's kept keys are listed in when some key is an
 * array index (`KeptKeys.order`: the request tests send no such key through the general path).
 * Expected values come from BigInt arithmetic and from the engine's own object key order.
 */
import { describe, expect, it } from 'vitest';
import { KeptKeys } from '../../src/observability/tracing/attribute-keys.js';
import { nanosAt } from '../../src/observability/tracing/proto-bytes.js';

/** A small deterministic generator, so a failure names its inputs again on the next run. */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x;
  };
}

function written(s: number, ns: number, at: number): bigint {
  const view = new DataView(new ArrayBuffer(32));
  nanosAt(view, at, s, ns);
  return view.getBigUint64(at, true);
}

describe('a time as fixed64 nanoseconds', () => {
  it('writes s × 10⁹ + ns for every seconds bit, at aligned and unaligned places', () => {
    const next = lcg(26);
    const seconds = [0, 1, 0xffff, 0x10000, 0x1ffff, 0x7fffffff, 0x80000000, 0xfffeffff, 0xfffffffe, 0xffffffff];
    for (let bit = 0; bit < 32; bit++) seconds.push(2 ** bit, 2 ** bit - 1);
    for (let i = 0; i < 200; i++) seconds.push(next());
    const nanos = [0, 1, 65535, 65536, 999_999_999];
    for (let i = 0; i < 5; i++) nanos.push(next() % 1_000_000_000);
    for (const s of seconds) for (const ns of nanos) for (const at of [0, 3, 8]) expect(written(s, ns, at), `s=${s} ns=${ns} at=${at}`).toBe(BigInt(s) * 1_000_000_000n + BigInt(ns));
  });

  it('carries nanoseconds outside one second, and seconds past 32 bits, into the same count', () => {
    const cases: [number, number][] = [
      [10, -1],
      [10, -2_500_000_000],
      [0x100000000, 0],
      [0x100000000, 7],
      [2 ** 34 + 12345, 999_999_999],
      [5, 1_000_000_000],
      [5, 3_000_000_001],
    ];
    for (const [s, ns] of cases) expect(written(s, ns, 1), `s=${s} ns=${ns}`).toBe(BigInt(s) * 1_000_000_000n + BigInt(ns));
  });
});

describe('the kept keys of a span', () => {
  /** Keys set in this order, a key set again kept in its first place: the slots listed as keys. */
  function listed(keys: string[]): string[] {
    const text = keys.join('');
    const kept = new KeptKeys();
    kept.start(text);
    let at = 0;
    for (const key of keys) {
      if (kept.find(at, key.length) < 0) kept.add(at, key.length);
      at += key.length;
    }
    const slots = kept.order() ?? Array.from({ length: kept.count }, (_, j) => j);
    return slots.map((j) => text.slice(kept.at[j]!, kept.at[j]! + kept.length[j]!));
  }

  /** What an object lists for the same assignments. */
  function objectOrder(keys: string[]): string[] {
    const o: Record<string, true> = {};
    for (const key of keys) o[key] = true;
    return Object.keys(o);
  }

  it('lists array-index keys first, ascending, then the others as set, as an object does', () => {
    const sets = [
      ['a', 'b', 'a', 'c'],
      ['http.method', '9', 'x', '10', '2', '9'],
      ['9', '8', '7'],
      ['b', 'a', '9'],
      ['x', '95', 'y', '9a'],
      ['09', '9', '-1', '1.5', '4294967295', '4294967294', '0', 'z'],
    ];
    for (const keys of sets) expect(listed(keys), keys.join(' ')).toEqual(objectOrder(keys));
  });

  it('keeps the same order past the keys compared one by one (a map finds them)', () => {
    const next = lcg(40);
    for (let round = 0; round < 30; round++) {
      const keys: string[] = [];
      for (let i = 0; i < 40; i++) {
        const n = next() % 30;
        keys.push(n % 3 === 0 ? String(n) : `k${n}`);
      }
      expect(listed(keys), keys.join(' ')).toEqual(objectOrder(keys));
    }
  });
});
