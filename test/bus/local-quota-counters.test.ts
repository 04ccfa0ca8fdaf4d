/**
 * The in-process quota counters (src/bus/local-quota-counters.ts) on a fake clock: windows and
 * leases at their exact edges (a window closes at `start + windowMs`, a lease at its expiry), the
 * exact waits a refusal reports, and the once-a-minute sweep that keeps the maps from growing with
 * every caller ever seen. The maps are private; their sizes are read only where memory is the behaviour.
 */
import { describe, expect, it } from 'vitest';
import { LocalQuotaCounters } from '../../src/bus/local-quota-counters.js';

const T0 = 1_000_000;

function clocked(): { c: LocalQuotaCounters; at: (t: number) => void } {
  let now = T0;
  return { c: new LocalQuotaCounters(() => now), at: (t) => (now = T0 + t) };
}

/** How many window and slot keys the counters hold (what the sweep exists to bound). */
function held(c: LocalQuotaCounters): { windows: number; slots: number } {
  return { windows: (Reflect.get(c, 'windows') as Map<string, unknown>).size, slots: (Reflect.get(c, 'slots') as Map<string, unknown>).size };
}

describe('local quota counters (fake clock)', () => {
  it('counts a window from its first take and reports the exact time left', async () => {
    const { c, at } = clocked();
    const w = { key: 'w', limit: 2, windowMs: 10_000 };
    expect(await c.take([w], [], 'a')).toEqual({ ok: true, windows: [{ count: 1, resetMs: 10_000 }] });
    at(4_000);
    expect(await c.take([w], [], 'b')).toEqual({ ok: true, windows: [{ count: 2, resetMs: 6_000 }] });
    expect(await c.peekWindow('w')).toEqual({ count: 2, resetMs: 6_000 });
    at(9_999);
    expect(await c.take([w], [], 'c')).toEqual({ ok: false, index: 0, retryMs: 1 });
    at(10_000);
    expect(await c.peekWindow('w')).toEqual({ count: 0, resetMs: 0 });
    expect(await c.take([w], [], 'd')).toEqual({ ok: true, windows: [{ count: 1, resetMs: 10_000 }] });
  });

  it('refuses at exactly the limit, naming the full window among several', async () => {
    const { c } = clocked();
    const roomy = { key: 'roomy', limit: 3, windowMs: 5_000 };
    const tight = { key: 'tight', limit: 1, windowMs: 7_000 };
    expect(await c.take([roomy, tight], [], 'a')).toEqual({
      ok: true,
      windows: [
        { count: 1, resetMs: 5_000 },
        { count: 1, resetMs: 7_000 },
      ],
    });
    expect(await c.take([roomy, tight], [], 'b')).toEqual({ ok: false, index: 1, retryMs: 7_000 });
    expect(await c.peekWindow('roomy')).toEqual({ count: 1, resetMs: 5_000 });
  });

  it('refuses a full slot counter with the wait until its soonest lease expires, indexed after the windows', async () => {
    const { c, at } = clocked();
    const w = { key: 'w', limit: 10, windowMs: 60_000 };
    expect((await c.take([w], [{ key: 's', limit: 2, leaseMs: 5_000 }], 'first')).ok).toBe(true);
    at(1_000);
    expect((await c.take([w], [{ key: 's', limit: 2, leaseMs: 9_000 }], 'second')).ok).toBe(true);
    at(2_000);
    expect(await c.take([w], [{ key: 's', limit: 2, leaseMs: 5_000 }], 'third')).toEqual({ ok: false, index: 1, retryMs: 3_000 });
    // a lease already held is no reason to refuse its own holder
    expect((await c.take([], [{ key: 's', limit: 2, leaseMs: 5_000 }], 'first')).ok).toBe(true);
    expect(await c.peekSlots('s')).toBe(2);
  });

  it('a lease is gone at exactly its expiry, not before', async () => {
    const { c, at } = clocked();
    const s = { key: 's', limit: 1, leaseMs: 5_000 };
    expect((await c.take([], [s], 'held')).ok).toBe(true);
    at(4_999);
    expect(await c.peekSlots('s')).toBe(1);
    expect(await c.take([], [s], 'other')).toEqual({ ok: false, index: 0, retryMs: 1 });
    at(5_000);
    expect(await c.peekSlots('s')).toBe(0);
    expect((await c.take([], [s], 'other')).ok).toBe(true);
  });

  it('a renewal counts its lease from the renewal, in every counter named', async () => {
    const { c, at } = clocked();
    const a = { key: 'a', limit: 1, leaseMs: 1_000 };
    const b = { key: 'b', limit: 1, leaseMs: 1_000 };
    expect((await c.take([], [a, b], 'held')).ok).toBe(true);
    at(500);
    await c.renew(['a', 'b', 'never-taken'], 'held', 2_000);
    at(2_499);
    expect(await c.take([], [a], 'x')).toEqual({ ok: false, index: 0, retryMs: 1 });
    expect(await c.take([], [b], 'x')).toEqual({ ok: false, index: 0, retryMs: 1 });
    at(2_500);
    expect((await c.take([], [a, b], 'x')).ok).toBe(true);
  });

  it('a release frees the lease in each counter and forgets a counter left empty', async () => {
    const { c } = clocked();
    const s = { key: 's', limit: 2, leaseMs: 60_000 };
    await c.take([], [s], 'one');
    await c.take([], [s], 'two');
    await c.release(['s', 'never-taken'], 'one');
    expect(await c.peekSlots('s')).toBe(1);
    expect(held(c).slots).toBe(1);
    await c.release(['s'], 'two');
    expect(await c.peekSlots('s')).toBe(0);
    expect(held(c).slots).toBe(0);
  });

  it('sweeps expired windows and leases once a minute, on the first take after it', async () => {
    const { c, at } = clocked();
    await c.take([{ key: 'w1', limit: 1, windowMs: 1_000 }], [{ key: 's1', limit: 1, leaseMs: 1_000 }], 'l1');
    await c.take([{ key: 'w2', limit: 1, windowMs: 120_000 }], [{ key: 's2', limit: 1, leaseMs: 120_000 }], 'l2');
    expect(held(c)).toEqual({ windows: 2, slots: 2 });
    at(59_999);
    await c.take([], [], 'none');
    expect(held(c)).toEqual({ windows: 2, slots: 2 });
    at(60_000);
    await c.take([], [], 'none');
    expect(held(c)).toEqual({ windows: 1, slots: 1 });
    // the next sweep is a minute after this one, not at every take
    await c.take([{ key: 'w3', limit: 1, windowMs: 1_000 }], [{ key: 's3', limit: 1, leaseMs: 1_000 }], 'l3');
    at(119_999);
    await c.take([], [], 'none');
    expect(held(c)).toEqual({ windows: 2, slots: 2 });
    at(120_000);
    await c.take([], [], 'none');
    expect(held(c)).toEqual({ windows: 0, slots: 0 });
  });

  it('the first sweep comes a minute after the counters were made, not after their first take', async () => {
    const { c, at } = clocked();
    at(30_000);
    await c.take([{ key: 'w', limit: 1, windowMs: 1_000 }], [{ key: 's', limit: 1, leaseMs: 1_000 }], 'l');
    at(59_999);
    await c.take([], [], 'none');
    expect(held(c)).toEqual({ windows: 1, slots: 1 });
    at(60_000);
    await c.take([], [], 'none');
    expect(held(c)).toEqual({ windows: 0, slots: 0 });
  });

  it('names the full slot counter by its place after the windows, among several slots', async () => {
    const { c } = clocked();
    const w = { key: 'w', limit: 10, windowMs: 60_000 };
    const free = { key: 'free', limit: 5, leaseMs: 60_000 };
    const full = { key: 'full', limit: 1, leaseMs: 60_000 };
    expect((await c.take([], [full], 'holder')).ok).toBe(true);
    expect(await c.take([w], [free, full], 'other')).toEqual({ ok: false, index: 2, retryMs: 60_000 });
    expect(await c.peekSlots('free')).toBe(0);
  });
});
