/**
 * The call queue of the usage recorder (src/core/usage/usage-recorder.ts), in process against a
 * store that keeps what it is given: which record a call makes (or the amend of its task's record),
 * what a call answered without a task is charged, the queue's bound, writes in slices, maintenance.
 * The real stores accept these rows: recorder-on-stores.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { UsageConfig } from '../../../src/config/usage-schema.js';
import { OTHER, UsageRecorder, type UsageRecorderOptions } from '../../../src/core/usage/usage-recorder.js';
import type { UsageAmend, UsageRecord } from '../../../src/store/usage-record.js';
import type { UsageStore } from '../../../src/store/usage-store.js';

class KeptStore implements UsageStore {
  writes: Array<{ records: UsageRecord[]; amends: UsageAmend[] }> = [];
  rollups: number[] = [];
  prunes: number[] = [];
  failWrites = false;
  failRollup = false;
  inWrite = 0;
  maxInWrite = 0;
  begun = 0;
  async write(records: readonly UsageRecord[], amends: readonly UsageAmend[]): Promise<void> {
    this.begun++;
    this.inWrite++;
    this.maxInWrite = Math.max(this.maxInWrite, this.inWrite);
    await new Promise((r) => setImmediate(r));
    this.inWrite--;
    if (this.failWrites) throw new Error('disk full');
    this.writes.push({ records: [...records], amends: [...amends] });
  }
  async query(): Promise<never[]> {
    return [];
  }
  async rollup(closedBefore: number): Promise<number> {
    if (this.failRollup) throw new Error('locked');
    this.rollups.push(closedBefore);
    return 0;
  }
  async prune(before: number): Promise<number> {
    this.prunes.push(before);
    return 0;
  }
  get records(): UsageRecord[] {
    return this.writes.flatMap((w) => w.records);
  }
  get amends(): UsageAmend[] {
    return this.writes.flatMap((w) => w.amends);
  }
}

const NOW = 1_700_000_000_000;
const config = (more: Partial<UsageConfig> = {}): UsageConfig => ({ enabled: true, retentionDays: 90, queueLimit: 100, flushIntervalMs: 1000, ...more });

function recorder(more: Partial<UsageRecorderOptions> = {}) {
  const store = new KeptStore();
  const warnings: Array<[object, string | undefined]> = [];
  const errors: Array<[object, string | undefined]> = [];
  const r = new UsageRecorder({
    store,
    replica: 'r1',
    config: config(),
    log: { warn: (o, m) => warnings.push([o, m]), error: (o, m) => errors.push([o, m]) },
    now: () => NOW,
    ...more,
  });
  return { r, store, warnings, errors };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the record of a call', () => {
  it('a call without a task: one record with the draft’s fields, dated at its end in whole ms, OK below 400', async () => {
    const { r, store } = recorder();
    const d = r.open('a2a-rest/1.0')!;
    expect(d.startedAt).toBe(NOW);
    d.operation = 'GetTask';
    d.agent = 'echo';
    d.taskId = 't1';
    d.contextId = 'c1';
    d.subject = 'alice';
    d.keyId = 'k1';
    d.ttfbMs = 3;
    r.finish(d, { status: 200, latencyMs: 10.6, bytesOut: 99 });
    await r.flush();
    expect(store.records).toHaveLength(1);
    const { id, ...rest } = store.records[0]!;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(rest).toEqual({
      kind: 'call',
      time: NOW + 11,
      startedAt: NOW,
      final: true,
      replica: 'r1',
      face: 'a2a-rest/1.0',
      operation: 'GetTask',
      outcome: 'OK',
      error: false,
      latencyMs: 10.6,
      promptTokens: 0,
      completionTokens: 0,
      cost: 0,
      ttfbMs: 3,
      bytesOut: 99,
      agent: 'echo',
      taskId: 't1',
      contextId: 'c1',
      subject: 'alice',
      keyId: 'k1',
    });
  });

  it('the outcome: HTTP_<status> from 400, CLIENT_CLOSED when aborted, the reason when someone saw it fail; no operation is unknown', async () => {
    const { r, store } = recorder();
    const statuses: Array<[number, boolean]> = [
      [399, false],
      [400, false],
      [503, false],
      [200, true],
    ];
    for (const [status, aborted] of statuses) r.finish(r.open('cards')!, { status, latencyMs: 1, aborted });
    const failed = r.open('a2a-jsonrpc/1.0')!;
    failed.outcome = 'TASK_NOT_FOUND';
    failed.error = true;
    r.finish(failed, { status: 200, latencyMs: 1 });
    await r.flush();
    expect(store.records.map((x) => [x.outcome, x.error, x.operation])).toEqual([
      ['OK', false, 'unknown'],
      ['HTTP_400', true, 'unknown'],
      ['HTTP_503', true, 'unknown'],
      ['CLIENT_CLOSED', false, 'unknown'],
      ['TASK_NOT_FOUND', true, 'unknown'],
    ]);
    for (const x of store.records) for (const k of ['ttfbMs', 'bytesOut', 'agent', 'taskId', 'contextId', 'subject', 'model']) expect(Object.hasOwn(x, k)).toBe(false);
  });

  it('an agent id that names no registered agent is recorded as other', async () => {
    const { r, store } = recorder({ isAgent: (id) => id === 'echo' });
    for (const agent of ['echo', 'random-123']) {
      const d = r.open('a2a-rest/1.0')!;
      d.agent = agent;
      r.finish(d, { status: 404, latencyMs: 1 });
    }
    await r.flush();
    expect(store.records.map((x) => x.agent)).toEqual(['echo', OTHER]);
    expect(OTHER).toBe('other');
  });

  it('a call that created a task amends the task’s record with the answer’s timing and sizes, and makes no record', async () => {
    const { r, store } = recorder();
    const d = r.open('a2a-jsonrpc/1.0')!;
    d.createdTask = true;
    d.taskId = 'task-9';
    d.ttfbMs = 4;
    d.bytesIn = 120;
    r.finish(d, { status: 200, latencyMs: 25, bytesOut: 300 });
    const bare = r.open('a2a-jsonrpc/1.0')!;
    bare.createdTask = true;
    bare.taskId = 'task-10';
    r.finish(bare, { status: 200, latencyMs: 5 });
    await r.flush();
    expect(store.records).toEqual([]);
    // strict: an amend never carries a column it has no value for (it would overwrite the row's)
    expect(store.amends).toStrictEqual([
      { id: 'task-9', latencyMs: 25, ttfbMs: 4, bytesOut: 300, bytesIn: 120 },
      { id: 'task-10', latencyMs: 5 },
    ]);
    // a call that says it created a task but names none is recorded as a call
    const unnamed = r.open('a2a-jsonrpc/1.0')!;
    unnamed.createdTask = true;
    r.finish(unnamed, { status: 200, latencyMs: 7 });
    await r.flush();
    expect(store.records.map((x) => x.latencyMs)).toEqual([7]);
    expect(store.amends).toHaveLength(2);
  });

  it('a skipped call makes nothing; records off make nothing and open no draft', async () => {
    const { r, store } = recorder();
    const d = r.open('health')!;
    d.skip = true;
    r.finish(d, { status: 200, latencyMs: 1 });
    await r.flush();
    expect(store.writes).toEqual([]);
    const off = recorder({ config: config({ enabled: false }) });
    expect(off.r.enabled).toBe(false);
    expect(off.r.tracking).toBe(false);
    expect(off.r.open('a2a-rest/1.0')).toBeUndefined();
  });
});

describe('what a call is charged', () => {
  const cost = (agent: string, skill: string | undefined) => (agent === 'llm' ? (skill === 'cheap' ? { perCall: 0.5 } : { perCall: 2, perPromptToken: 0.01, perCompletionToken: 0.03 }) : undefined);

  it('a call’s cached prompt tokens are in its record; none cached, no column', async () => {
    const { r, store } = recorder({ cost });
    const d = r.open('a2a-jsonrpc/1.0')!;
    d.agent = 'llm';
    d.answeredWithoutTask = true;
    d.reported = { promptTokens: 100, completionTokens: 10, cachedTokens: 40, cacheWriteTokens: 0 };
    r.finish(d, { status: 200, latencyMs: 1 });
    const none = r.open('a2a-jsonrpc/1.0')!;
    none.agent = 'llm';
    none.answeredWithoutTask = true;
    none.reported = { promptTokens: 100, completionTokens: 10, cachedTokens: 0, cacheWriteTokens: 0 };
    r.finish(none, { status: 200, latencyMs: 1 });
    await r.flush();
    expect(store.records[0]).toMatchObject({ promptTokens: 100, cachedTokens: 40 });
    expect(Object.hasOwn(store.records[1]!, 'cachedTokens')).toBe(false);
  });

  it('a run that answered without a task: per call plus reported tokens (hand-computed)', async () => {
    const { r, store } = recorder({ cost });
    const d = r.open('a2a-jsonrpc/1.0')!;
    d.agent = 'llm';
    d.answeredWithoutTask = true;
    d.reported = { model: 'm-1', promptTokens: 100, completionTokens: 10, cachedTokens: 0, cacheWriteTokens: 0 };
    r.finish(d, { status: 200, latencyMs: 1 });
    const cheap = r.open('a2a-jsonrpc/1.0')!;
    cheap.agent = 'llm';
    cheap.skill = 'cheap';
    cheap.answeredWithoutTask = true;
    cheap.reported = { promptTokens: 1000, completionTokens: 1000, cachedTokens: 0, cacheWriteTokens: 0 };
    r.finish(cheap, { status: 200, latencyMs: 1 });
    await r.flush();
    // 2 + 100 × 0.01 + 10 × 0.03 = 3.3; the cheap skill has only a per-call price
    expect(store.records[0]).toMatchObject({ promptTokens: 100, completionTokens: 10, model: 'm-1' });
    expect(store.records[0]!.cost).toBeCloseTo(3.3, 10);
    expect(store.records[1]).toMatchObject({ promptTokens: 1000, completionTokens: 1000, cost: 0.5, skill: 'cheap' });
    const silent = recorder({ cost });
    const d2 = silent.r.open('a2a-jsonrpc/1.0')!;
    d2.agent = 'llm';
    d2.answeredWithoutTask = true;
    silent.r.finish(d2, { status: 200, latencyMs: 1 });
    await silent.r.flush();
    // no usage reported: the per-call price alone
    expect(silent.store.records[0]).toMatchObject({ cost: 2, promptTokens: 0, completionTokens: 0 });
  });

  it('nothing for a call that ran no agent to an answer, named no agent, or has no price', async () => {
    const { r, store } = recorder({ cost });
    const follow = r.open('a2a-jsonrpc/1.0')!;
    follow.agent = 'llm';
    follow.reported = { promptTokens: 100, completionTokens: 10, cachedTokens: 0, cacheWriteTokens: 0 };
    r.finish(follow, { status: 200, latencyMs: 1 });
    const noAgent = r.open('a2a-jsonrpc/1.0')!;
    noAgent.answeredWithoutTask = true;
    r.finish(noAgent, { status: 200, latencyMs: 1 });
    const everything = recorder({ cost: () => ({ perCall: 2 }) });
    const unnamed = everything.r.open('a2a-jsonrpc/1.0')!;
    unnamed.answeredWithoutTask = true;
    everything.r.finish(unnamed, { status: 200, latencyMs: 1 });
    await everything.r.flush();
    // no agent named: nothing charged, whatever the price list says
    expect(everything.store.records[0]!.cost).toBe(0);
    const unpriced = r.open('a2a-jsonrpc/1.0')!;
    unpriced.agent = 'echo';
    unpriced.answeredWithoutTask = true;
    r.finish(unpriced, { status: 200, latencyMs: 1 });
    await r.flush();
    expect(store.records.map((x) => x.cost)).toEqual([0, 0, 0]);
    const noCostFn = recorder();
    const d = noCostFn.r.open('a2a-jsonrpc/1.0')!;
    d.agent = 'llm';
    d.answeredWithoutTask = true;
    noCostFn.r.finish(d, { status: 200, latencyMs: 1 });
    await noCostFn.r.flush();
    expect(noCostFn.store.records[0]!.cost).toBe(0);
  });
});

describe('the queue', () => {
  it('holds at most queueLimit records and amends together; drops beyond, counted, warning on the first of each thousand', async () => {
    const { r, store, warnings } = recorder({ config: config({ queueLimit: 100 }) });
    for (let i = 0; i < 60; i++) r.finish(r.open('cards')!, { status: 200, latencyMs: 1 });
    for (let i = 0; i < 40; i++) {
      const d = r.open('a2a-jsonrpc/1.0')!;
      d.createdTask = true;
      d.taskId = `t${i}`;
      r.finish(d, { status: 200, latencyMs: 1 });
    }
    expect(r.dropped).toBe(0);
    for (let i = 0; i < 1002; i++) r.finish(r.open('cards')!, { status: 200, latencyMs: 1 });
    expect(r.dropped).toBe(1002);
    expect(warnings).toEqual([
      [{ dropped: 1 }, 'usage queue full: call records dropped (the store is not keeping up)'],
      [{ dropped: 1001 }, 'usage queue full: call records dropped (the store is not keeping up)'],
    ]);
    await r.flush();
    expect(store.records).toHaveLength(60);
    expect(store.amends).toHaveLength(40);
    r.finish(r.open('cards')!, { status: 200, latencyMs: 1 });
    await r.flush();
    expect(store.records).toHaveLength(61);
  });

  it('a full queue still keeps the calls that carry a charge or tokens (budgets read them); only the rest are dropped', async () => {
    const price = (agent: string) => (agent === 'priced' ? { perCall: 1.5 } : undefined);
    const { r, store } = recorder({ config: config({ queueLimit: 100 }), cost: price });
    for (let i = 0; i < 100; i++) r.finish(r.open('cards')!, { status: 200, latencyMs: 1 });
    const run = (agent: string, tokens?: [number, number]) => {
      const d = r.open('a2a-jsonrpc/1.0')!;
      d.agent = agent;
      d.answeredWithoutTask = true;
      if (tokens) d.reported = { promptTokens: tokens[0], completionTokens: tokens[1], cachedTokens: 0, cacheWriteTokens: 0 };
      r.finish(d, { status: 200, latencyMs: 1 });
    };
    run('priced'); // 1.5 per call
    run('unpriced', [7, 0]); // no price, but tokens a token budget counts
    run('unpriced', [0, 3]);
    run('unpriced'); // neither: dropped like any other
    r.finish(r.open('cards')!, { status: 200, latencyMs: 1 });
    const task = r.open('a2a-jsonrpc/1.0')!;
    task.createdTask = true;
    task.taskId = 't-full';
    r.finish(task, { status: 200, latencyMs: 1 }); // a task's amend is timing only: dropped
    expect(r.dropped).toBe(3);
    await r.flush();
    expect(store.records).toHaveLength(103);
    expect(store.amends).toHaveLength(0);
    const kept = store.records.slice(100).map((x) => [x.agent, x.cost, x.promptTokens, x.completionTokens]);
    expect(kept).toEqual([
      ['priced', 1.5, 0, 0],
      ['unpriced', 0, 7, 0],
      ['unpriced', 0, 0, 3],
    ]);
  });

  it('writes in slices of 250 rows, records before amends, one write at a time, every row once and in order', async () => {
    const { r, store } = recorder({ config: config({ queueLimit: 2000 }) });
    for (let i = 0; i < 501; i++) r.finish(r.open('cards')!, { status: 200, latencyMs: i });
    for (let i = 0; i < 251; i++) {
      const d = r.open('a2a-jsonrpc/1.0')!;
      d.createdTask = true;
      d.taskId = `t${i}`;
      r.finish(d, { status: 200, latencyMs: 1 });
    }
    const first = r.flush();
    const second = r.flush();
    await Promise.all([first, second]);
    expect(store.writes.map((w) => [w.records.length, w.amends.length])).toEqual([
      [250, 0],
      [250, 0],
      [1, 0],
      [0, 250],
      [0, 1],
    ]);
    expect(store.records.map((x) => x.latencyMs)).toEqual(Array.from({ length: 501 }, (_, i) => i));
    expect(store.amends.map((a) => a.id)).toEqual(Array.from({ length: 251 }, (_, i) => `t${i}`));
    expect(store.maxInWrite).toBe(1);
    await r.flush();
    expect(store.writes).toHaveLength(5);
  });

  it('a queue of exactly a slice is one write (no empty write after it)', async () => {
    const { r, store } = recorder({ config: config({ queueLimit: 2000 }) });
    for (let i = 0; i < 250; i++) r.finish(r.open('cards')!, { status: 200, latencyMs: 1 });
    for (let i = 0; i < 250; i++) {
      const d = r.open('a2a-jsonrpc/1.0')!;
      d.createdTask = true;
      d.taskId = `t${i}`;
      r.finish(d, { status: 200, latencyMs: 1 });
    }
    await r.flush();
    expect(store.writes.map((w) => [w.records.length, w.amends.length])).toEqual([
      [250, 0],
      [0, 250],
    ]);
  });

  it('a flush waits for the write in progress before taking the queue', async () => {
    const { r, store } = recorder();
    r.finish(r.open('cards')!, { status: 200, latencyMs: 1 });
    const first = r.flush();
    r.finish(r.open('cards')!, { status: 200, latencyMs: 2 });
    await r.flush();
    await first;
    expect(store.writes.map((w) => w.records.map((x) => x.latencyMs))).toEqual([[1], [2]]);
    expect(store.maxInWrite).toBe(1);
  });

  it('a failed write is logged with its counts and lost; the next batch is written', async () => {
    const { r, store, errors } = recorder();
    store.failWrites = true;
    r.finish(r.open('cards')!, { status: 200, latencyMs: 1 });
    await r.flush();
    expect(errors).toHaveLength(1);
    expect(errors[0]![0]).toMatchObject({ records: 1, amends: 0 });
    expect(errors[0]![1]).toBe('usage records could not be written; this batch is lost');
    store.failWrites = false;
    r.finish(r.open('cards')!, { status: 200, latencyMs: 2 });
    await r.flush();
    expect(store.records.map((x) => x.latencyMs)).toEqual([2]);
  });

  it('a store that stays down: the first failure logged, then totals once a minute, and the recovery once with what was lost', async () => {
    let now = NOW;
    const { r, store, errors, warnings } = recorder({ now: () => now });
    store.failWrites = true;
    // 70 flushes a second apart, each with 2 records and 1 amend.
    for (let s = 0; s < 70; s++) {
      now = NOW + s * 1_000;
      r.finish(r.open('cards')!, { status: 200, latencyMs: 1 });
      r.finish(r.open('cards')!, { status: 200, latencyMs: 1 });
      const d = r.open('a2a-jsonrpc/1.0')!;
      d.createdTask = true;
      d.taskId = `t${s}`;
      r.finish(d, { status: 200, latencyMs: 1 });
      await r.flush();
    }
    // Each flush writes records then amends: two failing writes a flush.
    expect(errors.map(([, m]) => m)).toEqual(['usage records could not be written; this batch is lost', 'usage records still cannot be written; these batches are lost']);
    // The first failure at NOW; the totals line at the first write 60 s later (flush 60), with
    // the 2 writes of each of flushes 0..59 and flush 60's first.
    expect(errors[1]![0]).toMatchObject({ failingForMs: 60_000, lostBatches: 121, lostRecords: 122, lostAmends: 60 });
    expect(warnings).toEqual([]);
    store.failWrites = false;
    now = NOW + 75_000;
    r.finish(r.open('cards')!, { status: 200, latencyMs: 2 });
    await r.flush();
    expect(store.records.map((x) => x.latencyMs)).toEqual([2]);
    expect(warnings).toEqual([[{ failingForMs: 75_000, lostBatches: 140, lostRecords: 140, lostAmends: 70 }, 'usage records are written again']]);
    // A later failure starts a new outage, logged at once.
    store.failWrites = true;
    r.finish(r.open('cards')!, { status: 200, latencyMs: 3 });
    await r.flush();
    expect(errors).toHaveLength(3);
    expect(errors[2]![1]).toBe('usage records could not be written; this batch is lost');
  });

  it('a failed flush of several slices counts each slice it lost, records and amends alike', async () => {
    let now = NOW;
    const { r, store, errors, warnings } = recorder({ now: () => now, config: config({ queueLimit: 2_000 }) });
    store.failWrites = true;
    // 600 records and 600 amends: slices of 250, so 250 + 250 + 100 of each, six writes.
    for (let i = 0; i < 600; i++) r.finish(r.open('cards')!, { status: 200, latencyMs: 1 });
    for (let i = 0; i < 600; i++) {
      const d = r.open('a2a-jsonrpc/1.0')!;
      d.createdTask = true;
      d.taskId = `t${i}`;
      r.finish(d, { status: 200, latencyMs: 1 });
    }
    await r.flush();
    expect(store.begun).toBe(6);
    expect(errors).toHaveLength(1);
    expect(errors[0]![0]).toMatchObject({ records: 250, amends: 0 });
    store.failWrites = false;
    now = NOW + 5_000;
    r.finish(r.open('cards')!, { status: 200, latencyMs: 2 });
    await r.flush();
    expect(warnings).toEqual([[{ failingForMs: 5_000, lostBatches: 6, lostRecords: 600, lostAmends: 600 }, 'usage records are written again']]);
  });

  it('a store whose write throws instead of rejecting loses the slice the same way, and the flush goes on', async () => {
    const { r, store, errors } = recorder();
    let throwNext = true;
    const write = store.write.bind(store);
    store.write = (records, amends) => {
      if (!throwNext) return write(records, amends);
      throwNext = false;
      throw new Error('locked');
    };
    r.finish(r.open('cards')!, { status: 200, latencyMs: 1 });
    await r.flush();
    expect(errors).toHaveLength(1);
    expect(errors[0]![0]).toMatchObject({ records: 1, amends: 0 });
    r.finish(r.open('cards')!, { status: 200, latencyMs: 2 });
    await r.flush();
    expect(store.records.map((x) => x.latencyMs)).toEqual([2]);
  });

  it('close writes what is queued', async () => {
    const { r, store } = recorder();
    r.finish(r.open('cards')!, { status: 200, latencyMs: 1 });
    await r.close();
    expect(store.records).toHaveLength(1);
  });
});

describe('timers and maintenance', () => {
  it('maintain rolls up hours closed two minutes ago and prunes past retention', async () => {
    const { r, store } = recorder({ config: config({ retentionDays: 7 }) });
    await r.maintain();
    expect(store.rollups).toEqual([NOW - 120_000]);
    expect(store.prunes).toEqual([NOW - 7 * 86_400_000]);
  });

  it('a failed rollup is logged as a warning and the sweep is skipped until next time', async () => {
    const { r, store, warnings } = recorder();
    store.failRollup = true;
    await r.maintain();
    expect(store.prunes).toEqual([]);
    expect(warnings.map(([, m]) => m)).toEqual(['usage rollup or retention sweep failed; it runs again later']);
    expect((warnings[0]![0] as { err?: Error }).err?.message).toBe('locked');
  });

  it('start writes every flushIntervalMs and maintains every five minutes; close stops both; records off starts nothing', async () => {
    // only the intervals are faked: the writes' turns of the event loop (setImmediate) stay real
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { r, store } = recorder({ config: config({ flushIntervalMs: 1000 }) });
    r.start();
    r.start();
    r.finish(r.open('cards')!, { status: 200, latencyMs: 1 });
    await vi.advanceTimersByTimeAsync(999);
    expect(store.begun).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.begun).toBe(1);
    await r.flush(); // waits for the write the interval began
    expect(store.records).toHaveLength(1);
    expect(store.rollups).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(300_000 - 1001);
    expect(store.rollups).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.rollups).toHaveLength(1);
    await r.close();
    r.finish(r.open('cards')!, { status: 200, latencyMs: 1 });
    await vi.advanceTimersByTimeAsync(600_000);
    expect(store.records).toHaveLength(1);
    expect(store.rollups).toHaveLength(1);
    const off = recorder({ config: config({ enabled: false }) });
    off.r.start();
    await vi.advanceTimersByTimeAsync(600_000);
    expect(off.store.rollups).toHaveLength(0);
  });
});
