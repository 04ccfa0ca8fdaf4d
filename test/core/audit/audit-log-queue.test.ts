/**
 * The audit log's queue, batching and retry (src/core/audit/audit-log.ts) against a recording store
 * (the chain itself is tested in test/store/audit-chain.test.ts): each event's fields reach the
 * append as given and only those; batches are at most 500; one write at a time, so a record made
 * while a write is under way is never appended twice; a failed write is retried after 500 ms,
 * doubling to 30 s and starting again after a success; a full queue logs its first drop and every
 * 1000th; a closed log takes nothing more.
 */
import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../../src/core/audit/audit-event.js';
import { AuditLog } from '../../../src/core/audit/audit-log.js';
import type { AuditAppend, AuditRecord, AuditStore } from '../../../src/store/audit-store.js';

/** A store that keeps what it is asked to append; `fail` makes the next appends throw. */
function recordingStore() {
  const appends: AuditAppend[][] = [];
  const state = { fail: 0, gate: undefined as Promise<void> | undefined };
  const store: AuditStore = {
    async append(rows) {
      appends.push([...rows]);
      if (state.gate) await state.gate;
      if (state.fail > 0) {
        state.fail--;
        throw new Error('database unavailable');
      }
      return rows.map((r, i) => ({ ...r, seq: i + 1, prevHash: '', hash: '' }) as AuditRecord);
    },
    list: async () => [],
    verify: async () => ({ ok: true, count: 0, lastSeq: 0, lastHash: '' }),
  };
  return { store, appends, state };
}

const ev = (i: number, more: Partial<AuditEvent> = {}): AuditEvent => ({ action: 'apikey.created', outcome: 'success', actor: `a${i}`, ...more });
const turn = () => new Promise<void>((r) => setImmediate(r));
/** Polls `cond` until it holds, for up to 5 s (a retry timer is a timer: turns alone may not reach it). */
const waitFor = async (cond: () => boolean) => {
  const deadline = Date.now() + 5_000;
  while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
  expect(cond()).toBe(true);
};

describe('AuditLog queue', () => {
  it('hands each field of an event to the store as given, and no field it did not have', async () => {
    const { store, appends } = recordingStore();
    const log = new AuditLog({ store, replica: 'r9', now: () => 7 });
    log.record({ action: 'token.issued', outcome: 'success', actor: 'alice', actorClient: 'cli', target: 'client:x', clientAddress: '10.0.0.1', userAgent: 'ua', requestId: 'q', details: { scopes: ['a'] } });
    log.record({ action: 'signin.failed', outcome: 'failure', actor: 'anonymous' });
    await log.flush();
    expect(appends[0]).toStrictEqual([
      {
        time: 7,
        replica: 'r9',
        action: 'token.issued',
        outcome: 'success',
        actor: 'alice',
        actorClient: 'cli',
        target: 'client:x',
        clientAddress: '10.0.0.1',
        userAgent: 'ua',
        requestId: 'q',
        details: { scopes: ['a'] },
      },
      { time: 7, replica: 'r9', action: 'signin.failed', outcome: 'failure', actor: 'anonymous' },
    ]);
  });

  it('writes on its own, without a flush, on the next turn', async () => {
    const { store, appends } = recordingStore();
    const log = new AuditLog({ store, replica: 'r' });
    log.record(ev(1));
    await waitFor(() => appends.length === 1);
  });

  it('appends at most 500 records at once by default', async () => {
    const { store, appends } = recordingStore();
    const log = new AuditLog({ store, replica: 'r' });
    for (let i = 0; i < 1001; i++) log.record(ev(i));
    await log.flush();
    expect(appends.map((a) => a.length)).toEqual([500, 500, 1]);
    expect(appends.flat().map((a) => a.actor)).toEqual(Array.from({ length: 1001 }, (_, i) => `a${i}`));
  });

  it('starts no second write while one is under way: a record made meanwhile is appended once, after it', async () => {
    const { store, appends, state } = recordingStore();
    let open!: () => void;
    state.gate = new Promise<void>((r) => (open = r));
    const log = new AuditLog({ store, replica: 'r' });
    log.record(ev(1));
    await waitFor(() => appends.length === 1);
    log.record(ev(2));
    for (let i = 0; i < 5; i++) await turn();
    expect(appends).toHaveLength(1);
    open();
    state.gate = undefined;
    await log.flush();
    expect(appends.map((a) => a.map((r) => r.actor))).toEqual([['a1'], ['a2']]);
  });

  it('retries after 500 ms by default, doubling per failure, from 500 ms again after a success', async () => {
    const { store, state } = recordingStore();
    const delays: number[] = [];
    const log = new AuditLog({ store, replica: 'r', log: { warn: (o) => delays.push((o as { retryInMs: number }).retryInMs), error() {} } });
    state.fail = 3;
    log.record(ev(1));
    await log.flush(); // fails: retry in 500
    await log.flush(); // a flush writes at once, fails again: 1000
    await log.flush(); // 2000
    await log.flush(); // succeeds
    state.fail = 1;
    log.record(ev(2));
    await log.flush();
    expect(delays).toEqual([500, 1000, 2000, 500]);
    await log.close();
  });

  it('caps the retry delay at 30 s', async () => {
    const { store, state } = recordingStore();
    const delays: number[] = [];
    const log = new AuditLog({ store, replica: 'r', retryBaseMs: 20_000, log: { warn: (o) => delays.push((o as { retryInMs: number }).retryInMs), error() {} } });
    state.fail = 3;
    log.record(ev(1));
    for (let i = 0; i < 3; i++) await log.flush();
    expect(delays).toEqual([20_000, 30_000, 30_000]);
    await log.close();
  });

  it('retries on its own once the delay has passed', async () => {
    const { store, appends, state } = recordingStore();
    const log = new AuditLog({ store, replica: 'r', retryBaseMs: 5 });
    state.fail = 1;
    log.record(ev(1));
    await waitFor(() => appends.length === 2);
    expect(appends.map((a) => a.map((r) => r.actor))).toEqual([['a1'], ['a1']]);
  });

  it('without a logger, a failed write neither throws nor rejects a flush', async () => {
    const { store, state } = recordingStore();
    const log = new AuditLog({ store, replica: 'r' });
    state.fail = 1;
    log.record(ev(1));
    await expect(log.flush()).resolves.toBeUndefined();
    await log.close();
  });

  it('logs the first drop of a full queue and every 1000th after it', async () => {
    const { store } = recordingStore();
    const errors: Array<{ o: object; m: string | undefined }> = [];
    const log = new AuditLog({ store, replica: 'r', queueLimit: 1, log: { warn() {}, error: (o, m) => errors.push({ o, m }) } });
    for (let i = 0; i < 2002; i++) log.record(ev(i, { action: `a.${i}` }));
    expect(log.dropped).toBe(2001);
    expect(errors).toEqual([
      { o: { dropped: 1, action: 'a.1' }, m: 'audit log queue full: records are being dropped' },
      { o: { dropped: 1001, action: 'a.1001' }, m: 'audit log queue full: records are being dropped' },
      { o: { dropped: 2001, action: 'a.2001' }, m: 'audit log queue full: records are being dropped' },
    ]);
    await log.close();
  });

  it('writes what was queued on close, then takes nothing more and schedules no retry', async () => {
    const { store, appends, state } = recordingStore();
    const log = new AuditLog({ store, replica: 'r', retryBaseMs: 1 });
    log.record(ev(1));
    await log.close();
    expect(appends).toHaveLength(1);
    log.record(ev(2));
    for (let i = 0; i < 5; i++) await turn();
    expect(appends).toHaveLength(1);
    // a log closed while its write fails does not come back to retry it
    const second = recordingStore();
    second.state.fail = 2;
    const closing = new AuditLog({ store: second.store, replica: 'r', retryBaseMs: 1 });
    closing.record(ev(3));
    // the scheduled write fails, and close's own attempt too
    await closing.close();
    expect(second.appends).toHaveLength(2);
    // absence of a retry: 20 retry delays later, still two attempts
    await new Promise((r) => setTimeout(r, 20));
    expect(second.appends).toHaveLength(2);
    expect(state.fail).toBe(0);
  });
});
