/**
 * The usage recorder's amends in flat columns (src/core/usage/amend-queue.ts, ADR 0064): every
 * amend comes back as the object the recorder used to queue, id for id and field for field.
 */
import { describe, expect, it } from 'vitest';
import { AmendQueue } from '../../../src/core/usage/amend-queue.js';
import type { UsageAmend } from '../../../src/store/usage-record.js';

/** The amend a call makes, as the recorder built it before (only the fields given). */
function expected(id: string, latencyMs: number, ttfbMs?: number, bytesIn?: number, bytesOut?: number): UsageAmend {
  const a: UsageAmend = { id, latencyMs };
  if (ttfbMs !== undefined) a.ttfbMs = ttfbMs;
  if (bytesOut !== undefined) a.bytesOut = bytesOut;
  if (bytesIn !== undefined) a.bytesIn = bytesIn;
  return a;
}

describe('the amend queue', () => {
  it('gives back each amend with its id and only the fields it was given, in order', () => {
    const q = new AmendQueue();
    q.push('019ad1c2-0000-7000-8000-000000000001', 12.625, 3.5, 120, 300);
    q.push('task-10', 5, undefined, undefined, undefined);
    q.push('t', 0, 0, undefined, 0);
    q.push('', 1, undefined, 0, undefined);
    expect(q.length).toBe(4);
    expect(q.slice(0, 4)).toStrictEqual([
      { id: '019ad1c2-0000-7000-8000-000000000001', latencyMs: 12.625, ttfbMs: 3.5, bytesOut: 300, bytesIn: 120 },
      { id: 'task-10', latencyMs: 5 },
      { id: 't', latencyMs: 0, ttfbMs: 0, bytesOut: 0 },
      { id: '', latencyMs: 1, bytesIn: 0 },
    ]);
    expect(q.slice(1, 3).map((a) => a.id)).toEqual(['task-10', 't']);
    expect(q.slice(3, 250)).toHaveLength(1);
  });

  it('keeps any id exactly: non-ASCII, astral, a lone surrogate, DEL, long ones, between ASCII ones', () => {
    const ids = ['a-1', 'tâche-é', 'b-2', 'задача', '任务-🚀', 'lone-\ud800-x', '\udfff', '\x7f\x00', 'ÿ', 'x'.repeat(20_000), `${'x'.repeat(10_000)}é`, 'c-3'];
    const q = new AmendQueue();
    ids.forEach((id, i) => q.push(id, i, undefined, undefined, undefined));
    expect(q.slice(0, ids.length).map((a) => a.id)).toEqual(ids);
  });

  it('grows past its first room and keeps every amend; cleared, it is empty and takes new ones', () => {
    const q = new AmendQueue();
    const want: UsageAmend[] = [];
    for (let i = 0; i < 3_000; i++) {
      const id = `task-${i}-${'y'.repeat(i % 97)}`;
      const ttfb = i % 3 === 0 ? undefined : i / 8;
      const bytesIn = i % 5 === 0 ? undefined : i * 7;
      const bytesOut = i % 2 === 0 ? undefined : i * 11;
      q.push(id, i + 0.5, ttfb, bytesIn, bytesOut);
      want.push(expected(id, i + 0.5, ttfb, bytesIn, bytesOut));
    }
    expect(q.length).toBe(3_000);
    const got: UsageAmend[] = [];
    for (let i = 0; i < q.length; i += 250) got.push(...q.slice(i, i + 250));
    expect(got).toStrictEqual(want);
    q.clear();
    expect(q.length).toBe(0);
    expect(q.slice(0, 250)).toEqual([]);
    q.push('again', 2, undefined, undefined, 9);
    expect(q.slice(0, 250)).toStrictEqual([{ id: 'again', latencyMs: 2, bytesOut: 9 }]);
  });
});
