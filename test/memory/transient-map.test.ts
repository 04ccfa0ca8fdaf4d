import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { TransientMap } from '../../src/memory/transient-map.js';

describe('TransientMap', () => {
  it('gets, sets, overwrites and deletes like a Map, counting its entries', () => {
    const m = new TransientMap<{ n: number }>();
    const a = { n: 1 };
    expect(m.set('a', a)).toBe(m);
    m.set('b', { n: 2 });
    m.set('a', { n: 3 });
    expect(m.size).toBe(2);
    expect(m.get('a')).toEqual({ n: 3 });
    expect(m.has('b')).toBe(true);
    expect(m.delete('b')).toBe(true);
    expect(m.delete('b')).toBe(false);
    expect(m.has('b')).toBe(false);
    expect(m.get('b')).toBeUndefined();
    expect(m.size).toBe(1);
    m.clear();
    expect(m.size).toBe(0);
    expect(m.get('a')).toBeUndefined();
  });

  it('takes keys that name Object.prototype members or look like array indexes as plain keys', () => {
    const m = new TransientMap<string>();
    for (const k of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '0', '42']) {
      expect(m.has(k)).toBe(false);
      m.set(k, `v${k}`);
    }
    expect(m.size).toBe(6);
    expect(m.get('__proto__')).toBe('v__proto__');
    expect(m.get('constructor')).toBe('vconstructor');
    expect([...m.values()].sort()).toEqual(['v0', 'v42', 'v__proto__', 'vconstructor', 'vhasOwnProperty', 'vtoString']);
    expect(m.delete('__proto__')).toBe(true);
    expect(m.delete('0')).toBe(true);
    expect(m.size).toBe(4);
  });

  it('skips entries deleted while its values are walked', () => {
    const m = new TransientMap<number>();
    for (let i = 0; i < 10; i++) m.set(`k${i}`, i);
    const seen: number[] = [];
    for (const v of m.values()) {
      seen.push(v);
      m.delete(`k${v + 1}`);
    }
    expect(seen.every((v) => !seen.includes(v + 1))).toBe(true);
    // what is left is exactly what was visited: nothing left behind unvisited
    expect([...m.values()].sort()).toEqual([...seen].sort());
    expect(m.size).toBe(seen.length);
  });

  it('walks its values across the renewal of its storage that deletions cause', () => {
    // 64 entries; at the first visited, 48 others deleted: the renewal comes at the 32nd removal,
    // mid-walk, and the 16 deleted after it must not be visited either
    const m = new TransientMap<number>();
    for (let i = 0; i < 64; i++) m.set(`k${i}`, i);
    const seen: number[] = [];
    for (const v of m.values()) {
      if (seen.length === 0) for (let i = 0; i < 64; i++) if (i !== v && i % 4 !== 0) m.delete(`k${i}`);
      seen.push(v);
    }
    const kept = [...new Set([seen[0]!, ...Array.from({ length: 16 }, (_, i) => i * 4)])].sort((a, b) => a - b);
    expect([...seen].sort((a, b) => a - b)).toEqual(kept);
    expect(m.size).toBe(kept.length);
    // deleted, then set again: counted and found once more
    m.set('k1', 1);
    expect([m.size, m.get('k1'), m.has('k3')]).toEqual([kept.length + 1, 1, false]);
    expect([...m.values()].sort((a, b) => a - b)).toEqual([...kept, 1].sort((a, b) => a - b));
  });

  it('holds exactly the live entries, with their values, through many renewals', () => {
    // Entries come and go as in-flight requests do (about 40 live at a time, 1,000 in all), so the
    // storage is renewed again and again: each time every live entry, and none removed, must move.
    const m = new TransientMap<{ n: number }>();
    const same = new Map<string, { n: number }>();
    for (let i = 0; i < 1_000; i++) {
      const v = { n: i };
      m.set(`k${i}`, v);
      same.set(`k${i}`, v);
      if (i % 3 === 0) m.set(`k${i}`, (same.set(`k${i}`, { n: -i }), same.get(`k${i}`)!));
      if (i >= 40) {
        const gone = `k${i - 40 + (i % 7)}`;
        expect(m.delete(gone)).toBe(same.delete(gone));
      }
      if (i % 97 === 0) {
        expect(m.size).toBe(same.size);
        for (const [k, val] of same) expect(m.get(k)).toBe(val);
        expect(new Set(m.values())).toEqual(new Set(same.values()));
      }
    }
    expect(m.size).toBe(same.size);
    expect(new Set(m.values())).toEqual(new Set(same.values()));
    for (let i = 0; i < 1_000; i++) expect(m.has(`k${i}`)).toBe(same.has(`k${i}`));
  });
});

describe('TransientMap and the young-generation collector (ADR 0047)', () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (o?: { type?: 'minor' | 'major' }) => void;
  afterAll(() => setFlagsFromString('--no-expose-gc'));
  const oldSpaceUsed = () => getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')!.space_used_size;

  /**
   * A long-lived map (its storage promoted by two full collections) takes entries and loses them
   * at the request rate, as the map of in-flight tasks does, while only scavenges run. Returns
   * how much the old generation grew: what the scavenges promoted. (Weak references cannot tell:
   * a scavenge treats their targets as strong.)
   */
  function promotedByChurn(map: { set(k: string, v: object): unknown; delete(k: string): unknown }): number {
    gc({ type: 'major' });
    gc({ type: 'major' });
    const before = oldSpaceUsed();
    const inFlight: string[] = [];
    for (let i = 0; i < 4_000; i++) {
      const key = `task-${i}`;
      map.set(key, { payload: new Array<number>(64).fill(i) });
      inFlight.push(key);
      if (inFlight.length > 8) map.delete(inFlight.shift()!);
      if (i % 250 === 0) gc({ type: 'minor' });
    }
    for (const key of inFlight) map.delete(key);
    gc({ type: 'minor' });
    gc({ type: 'minor' });
    return oldSpaceUsed() - before;
  }

  it('lets scavenges free the values it no longer holds', () => {
    // 4,000 values of ~0.6 KB: a Map here promoted ~2.7 MB of them (Node 20), this map ~0.1 MB at most
    expect(promotedByChurn(new TransientMap<object>())).toBeLessThan(1_000_000);
  });

  it('does not keep the keys it no longer holds', () => {
    // Deleted entries are overwritten in place until the storage is renewed: 100,000 keys taken
    // and let go, 8 at a time, leave nothing behind (kept, they were 7.7 MB; let go, ~1 MB of other growth: bare32)
    const heapUsed = () => getHeapSpaceStatistics().reduce((n, s) => n + s.space_used_size, 0);
    const m = new TransientMap<object>();
    gc({ type: 'major' });
    const before = heapUsed();
    const value = {};
    for (let i = 0; i < 100_000; i++) {
      m.set(`a-request-rate-key-${i}`, value);
      if (i >= 8) m.delete(`a-request-rate-key-${i - 8}`);
    }
    gc({ type: 'major' });
    expect(m.size).toBe(8);
    expect(heapUsed() - before).toBeLessThan(3_000_000);
  });
});
