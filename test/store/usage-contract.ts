/**
 * Usage records, part of the Store contract: the task record's upsert inside `commit`, call
 * records and amends through `usage.write`, and analytics queries that answer the same before and
 * after rollups (checked against a plain computation over the records), with percentiles within
 * the histogram's bucket error; retention.
 */
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/schema.js';
import type { Store } from '../../src/store/store.js';
import { USAGE_DIMENSIONS, type UsageDimension, type UsageGroup, type UsageAmend, type UsageQuery, type UsageRecord } from '../../src/store/usage-record.js';
import type { SqlUsageStore } from '../../src/store/usage/sql-usage-store.js';
import { addHistogramText, DURATION_BOUNDS_MS, DURATION_COLUMNS, histogramText, LATENCY_BOUNDS_MS, LATENCY_COLUMNS } from '../../src/store/usage/usage-histogram.js';
import { DAILY, HOURLY } from '../../src/store/usage/usage-sql.js';
import { ConcurrentUpdateError } from '../../src/store/store.js';
import { newTask, T0, update } from './fixtures.js';
import type { ContractContext } from './store-contract.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const usageOf = (store: Store) => store.usage as SqlUsageStore;

function taskRecord(id: string, o: Partial<UsageRecord> = {}): UsageRecord {
  return {
    id,
    kind: 'task',
    time: T0,
    startedAt: T0,
    final: false,
    replica: 'r1',
    face: 'a2a-jsonrpc/1.0',
    operation: 'SendMessage',
    agent: 'agent-a',
    skill: 'echo',
    taskId: id,
    contextId: 'ctx-1',
    subject: 'alice',
    clientId: 'client-1',
    usecase: 'support',
    outcome: 'TASK_STATE_SUBMITTED',
    error: false,
    promptTokens: 0,
    completionTokens: 0,
    cost: 0,
    ...o,
  };
}

/** A finished call's record (an MCP tools/call that answered OK), with `o` over it. */
export function callRecord(id: string, o: Partial<UsageRecord> = {}): UsageRecord {
  return {
    id,
    kind: 'call',
    time: T0,
    startedAt: T0 - 5,
    final: true,
    replica: 'r1',
    face: 'mcp/2025-11-25',
    operation: 'tools/call',
    outcome: 'OK',
    error: false,
    promptTokens: 0,
    completionTokens: 0,
    cost: 0,
    ...o,
  };
}

/** Deterministic pseudo-random numbers, so a failure reproduces. */
function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

/** Starts 36 h before T0 (a month boundary) and runs 3 days: hours, days and months all split. */
const DATA_START = T0 - 36 * HOUR;
const DATA_END = DATA_START + 3 * DAY;

function dataset(n: number): UsageRecord[] {
  const r = rng(42);
  const of = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const out: UsageRecord[] = [];
  for (let i = 0; i < n; i++) {
    const time = DATA_START + Math.floor(r() * (DATA_END - DATA_START));
    const task = r() < 0.5;
    const outcome = of(task ? ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_COMPLETED'] : ['OK', 'TASK_NOT_FOUND', 'OK', 'HTTP_404']);
    const opt = <K extends keyof UsageRecord>(key: K, values: readonly (UsageRecord[K] | undefined)[]): Partial<UsageRecord> => {
      const v = of(values);
      return v === undefined ? {} : { [key]: v };
    };
    out.push({
      id: `rec-${i}`,
      kind: task ? 'task' : 'call',
      time,
      startedAt: time - 10,
      // a few running tasks: never counted (see SqlUsageStore)
      final: !task || r() < 0.9,
      replica: of(['r1', 'r2']),
      face: of(['a2a-jsonrpc/1.0', 'mcp/2025-11-25', 'a2a-rest/0.3']),
      operation: task ? 'SendMessage' : of(['GetTask', 'tools/call']),
      ...opt('agent', ['agent-a', 'agent-b', undefined]),
      ...opt('skill', ['echo', 'sum', undefined]),
      ...opt('tool', ['search', undefined]),
      ...opt('subject', ['alice', 'bob', 'carol', undefined]),
      ...opt('clientId', ['client-1', undefined]),
      ...opt('keyId', ['k1', 'k2', undefined]),
      ...opt('usecase', ['support', undefined]),
      ...opt('remoteSubject', ['bea', 'bob@remote', undefined, undefined]),
      ...opt('remoteIssuer', ['https://as.example', undefined]),
      outcome,
      error: outcome !== 'OK' && outcome !== 'TASK_STATE_COMPLETED',
      ...(r() < 0.85 ? { latencyMs: Math.round(Math.exp(r() * 12) * 100) / 100 } : {}),
      ...(task ? { durationMs: Math.round(Math.exp(r() * 16)) } : {}),
      ...(r() < 0.7 ? { bytesIn: Math.floor(r() * 5000), bytesOut: Math.floor(r() * 50_000) } : {}),
      ...(() => {
        const promptTokens = task ? Math.floor(r() * 1000) : 0;
        const cachedTokens = Math.floor(r() * promptTokens * 0.5);
        return { promptTokens, ...(cachedTokens ? { cachedTokens } : {}) };
      })(),
      completionTokens: task ? Math.floor(r() * 300) : 0,
      cost: task ? Math.floor(r() * 400) / 100 : 0,
    });
  }
  return out;
}

const FIELD: Record<UsageDimension, keyof UsageRecord> = {
  agent: 'agent',
  skill: 'skill',
  tool: 'tool',
  subject: 'subject',
  client: 'clientId',
  key: 'keyId',
  usecase: 'usecase',
  face: 'face',
  operation: 'operation',
  outcome: 'outcome',
  kind: 'kind',
  remoteSubject: 'remoteSubject',
  remoteIssuer: 'remoteIssuer',
};

interface Expected {
  key: Partial<Record<UsageDimension, string | null>>;
  bucketStart?: number;
  calls: number;
  errors: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  cost: number;
  bytesIn: number;
  bytesOut: number;
  latencies: number[];
  durations: number[];
}

function bucketOf(time: number, bucket: UsageQuery['bucket']): number | undefined {
  if (bucket === undefined) return undefined;
  if (bucket === 'hour') return time - (time % HOUR);
  if (bucket === 'day') return time - (time % DAY);
  const d = new Date(time);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** The answer computed the obvious way, from the final records. */
function expected(records: readonly UsageRecord[], q: UsageQuery): Expected[] {
  const groups = new Map<string, Expected>();
  for (const rec of records) {
    if (!rec.final || rec.time < q.from || rec.time >= q.to) continue;
    const value = (d: UsageDimension) => (rec[FIELD[d]] as string | undefined) ?? null;
    if (Object.entries(q.filters).some(([d, vs]) => !(vs as (string | null)[]).includes(value(d as UsageDimension)))) continue;
    const key = Object.fromEntries(q.groupBy.map((d) => [d, value(d)]));
    const bucketStart = bucketOf(rec.time, q.bucket);
    const id = JSON.stringify([bucketStart, key]);
    let g = groups.get(id);
    if (!g) {
      g = { key, ...(bucketStart === undefined ? {} : { bucketStart }), calls: 0, errors: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, cost: 0, bytesIn: 0, bytesOut: 0, latencies: [], durations: [] };
      groups.set(id, g);
    }
    g.calls++;
    if (rec.error) g.errors++;
    g.promptTokens += rec.promptTokens;
    g.completionTokens += rec.completionTokens;
    g.cachedTokens += rec.cachedTokens ?? 0;
    g.cost += rec.cost;
    g.bytesIn += rec.bytesIn ?? 0;
    g.bytesOut += rec.bytesOut ?? 0;
    if (rec.latencyMs !== undefined) g.latencies.push(rec.latencyMs);
    if (rec.durationMs !== undefined) g.durations.push(rec.durationMs);
  }
  return [...groups.values()];
}

/** Nearest-rank percentile. */
function exactPercentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(p * sorted.length)) - 1]!;
}

/** The histogram bucket a value falls in: the estimate must land in the true value's bucket. */
function bucketIndex(v: number, bounds: readonly number[]): number {
  const i = bounds.findIndex((b) => v <= b);
  return i === -1 ? bounds.length : i;
}

function expectPercentiles(actual: { p50: number; p95: number; p99: number } | null, values: number[], bounds: readonly number[], what: string): void {
  if (values.length === 0) {
    expect(actual, what).toBeNull();
    return;
  }
  expect(actual, what).not.toBeNull();
  for (const [p, got] of [
    [0.5, actual!.p50],
    [0.95, actual!.p95],
    [0.99, actual!.p99],
  ] as const) {
    const truth = exactPercentile(values, p);
    expect(bucketIndex(got, bounds), `${what} p${p * 100}: ${got} vs exact ${truth}`).toBe(bucketIndex(truth, bounds));
    expect(got).toBeGreaterThanOrEqual(Math.min(...values));
    expect(got).toBeLessThanOrEqual(Math.max(...values));
  }
}

const groupId = (g: { key: object; bucketStart?: number }) => JSON.stringify([g.bucketStart, g.key]);

function expectAnswer(actual: UsageGroup[], records: readonly UsageRecord[], q: UsageQuery): void {
  const want = expected(records, q);
  expect(actual.map(groupId).sort(), JSON.stringify(q)).toEqual(want.map(groupId).sort());
  const byId = new Map(want.map((g) => [groupId(g), g]));
  for (const g of actual) {
    const w = byId.get(groupId(g))!;
    expect({ calls: g.calls, errors: g.errors, promptTokens: g.promptTokens, completionTokens: g.completionTokens, cachedTokens: g.cachedTokens, bytesIn: g.bytesIn, bytesOut: g.bytesOut }).toEqual({
      calls: w.calls,
      errors: w.errors,
      promptTokens: w.promptTokens,
      completionTokens: w.completionTokens,
      cachedTokens: w.cachedTokens,
      bytesIn: w.bytesIn,
      bytesOut: w.bytesOut,
    });
    expect(g.cost).toBeCloseTo(w.cost, 6);
    expect(g.errorRate).toBeCloseTo(w.errors / w.calls, 12);
    expectPercentiles(g.latencyMs, w.latencies, LATENCY_BOUNDS_MS, `latency ${groupId(g)}`);
    expectPercentiles(g.durationMs, w.durations, DURATION_BOUNDS_MS, `duration ${groupId(g)}`);
    if (g.durationMs) expect(g.durationMs.avg).toBeCloseTo(w.durations.reduce((a, b) => a + b, 0) / w.durations.length, 6);
  }
  // largest first
  for (let i = 1; i < actual.length; i++) expect(actual[i - 1]!.calls).toBeGreaterThanOrEqual(actual[i]!.calls);
}

/** Every dimension alone, a few combinations, each time bucket, and filters (with null). */
function queries(from: number, to: number): UsageQuery[] {
  const qs: UsageQuery[] = [{ groupBy: [], filters: {}, from, to }];
  for (const d of USAGE_DIMENSIONS) qs.push({ groupBy: [d], filters: {}, from, to });
  qs.push({ groupBy: ['agent', 'outcome'], filters: {}, from, to });
  qs.push({ groupBy: ['subject', 'client', 'key'], filters: {}, from, to });
  for (const bucket of ['hour', 'day', 'month'] as const) {
    qs.push({ groupBy: [], bucket, filters: {}, from, to });
    qs.push({ groupBy: ['agent'], bucket, filters: {}, from, to });
  }
  qs.push({ groupBy: ['agent'], filters: { subject: ['alice', null] }, from, to });
  qs.push({ groupBy: ['tool'], bucket: 'day', filters: { agent: [null], kind: ['call'] }, from, to });
  qs.push({ groupBy: ['face'], filters: { outcome: ['OK', 'TASK_STATE_COMPLETED'], client: ['client-1'] }, from, to });
  qs.push({ groupBy: ['key'], filters: { key: ['k2'] }, from, to });
  qs.push({ groupBy: [], filters: { agent: [] }, from, to });
  qs.push({ groupBy: ['remoteSubject', 'agent'], bucket: 'day', filters: { remoteIssuer: ['https://as.example'] }, from, to });
  return qs;
}

export function describeUsageContract(ctx: ContractContext): void {
  describe('usage records', () => {
    describe('the task record in commit (TaskCommit.usage)', () => {
      it('creates the record with the task, then updates it: state columns replaced, tokens and cost added, first-write columns kept', async () => {
        const store = ctx.store();
        const created = { ...newTask(), usage: undefined as UsageRecord | undefined };
        const id = created.task.id;
        // The record's agent, context and outcome are the task's own (taskUsageRow writes them so).
        const contextId = created.task.contextId;
        created.usage = taskRecord(id, { contextId, latencyMs: 12, ttfbMs: 3, bytesIn: 100 });
        await store.commit([created]);
        expect(await usageOf(store).get(id)).toEqual(taskRecord(id, { contextId, latencyMs: 12, ttfbMs: 3, bytesIn: 100 }));

        const working = {
          ...update(created),
          usage: taskRecord(id, { outcome: 'TASK_STATE_WORKING', time: T0 + 10, model: 'm1', promptTokens: 10, completionTokens: 4, cachedTokens: 6, cost: 1.25, subject: 'mallory', agent: 'other' }),
        };
        await store.commit([working]);
        const done = {
          ...update(working, { state: 'TASK_STATE_FAILED' }),
          usage: taskRecord(id, {
            outcome: 'TASK_STATE_FAILED',
            error: true,
            final: true,
            time: T0 + 20,
            durationMs: 20,
            promptTokens: 5,
            completionTokens: 1,
            cachedTokens: 2,
            cost: 0.5,
            bytesOut: 42,
            startedAt: T0 + 99,
          }),
        };
        await store.commit([done]);

        expect(await usageOf(store).get(id)).toEqual(
          taskRecord(id, {
            contextId,
            outcome: 'TASK_STATE_FAILED',
            error: true,
            final: true,
            time: T0 + 20,
            durationMs: 20,
            promptTokens: 15,
            completionTokens: 5,
            cachedTokens: 8,
            cost: 1.75,
            model: 'm1',
            latencyMs: 12,
            ttfbMs: 3,
            bytesIn: 100,
            bytesOut: 42,
          }),
        );
      });

      it("keeps a task record's caller fields as written: a subject other than the owner, the tool, the key; timing with only a latency", async () => {
        // The task row stores the subject only when it differs from the owner and rebuilds it on read;
        // these are the fields a bill and a key's usage are read by.
        const store = ctx.store();
        const created = { ...newTask({ owner: 'alice' }), usage: undefined as UsageRecord | undefined };
        const id = created.task.id;
        const contextId = created.task.contextId;
        created.usage = taskRecord(id, { contextId, subject: 'svc-reporting', tool: 'lookup', keyId: 'k9', latencyMs: 7 });
        await store.commit([created]);
        expect(await usageOf(store).get(id)).toEqual(taskRecord(id, { contextId, subject: 'svc-reporting', tool: 'lookup', keyId: 'k9', latencyMs: 7 }));
        const owned = { ...newTask({ owner: 'alice' }), usage: undefined as UsageRecord | undefined };
        owned.usage = taskRecord(owned.task.id, { contextId: owned.task.contextId, subject: 'alice' });
        await store.commit([owned]);
        expect(await usageOf(store).get(owned.task.id)).toMatchObject({ subject: 'alice' });
      });

      it('keeps the remote identity a task reported once when later writes carry none (issue 27)', async () => {
        const store = ctx.store();
        const created = { ...newTask(), usage: undefined as UsageRecord | undefined };
        const id = created.task.id;
        created.usage = taskRecord(id);
        await store.commit([created]);
        const working = { ...update(created), usage: taskRecord(id, { outcome: 'TASK_STATE_WORKING', time: T0 + 10, remoteSubject: 'bea', remoteIssuer: 'https://b.example' }) };
        await store.commit([working]);
        const done = { ...update(working, { state: 'TASK_STATE_COMPLETED' }), usage: taskRecord(id, { outcome: 'TASK_STATE_COMPLETED', final: true, time: T0 + 20 }) };
        await store.commit([done]);
        expect(await usageOf(store).get(id)).toMatchObject({ outcome: 'TASK_STATE_COMPLETED', remoteSubject: 'bea', remoteIssuer: 'https://b.example' });
      });

      it('adds nothing when the commit fails: a replayed or concurrent commit never doubles the tokens', async () => {
        const store = ctx.store();
        const created = { ...newTask(), usage: undefined as UsageRecord | undefined };
        const id = created.task.id;
        created.usage = taskRecord(id, { promptTokens: 7, cost: 1 });
        await store.commit([created]);
        // the same create again (a retry after a lost reply) and a commit from a stale version
        await expect(store.commit([created])).rejects.toBeInstanceOf(ConcurrentUpdateError);
        const next = { ...update(created), usage: taskRecord(id, { promptTokens: 3 }) };
        await store.commit([next]);
        await expect(store.commit([next])).rejects.toBeInstanceOf(ConcurrentUpdateError);
        // a batch that fails as a whole leaves the record of its good commit untouched too
        const other = { ...newTask(), usage: undefined as UsageRecord | undefined };
        other.usage = taskRecord(other.task.id, { promptTokens: 1 });
        await expect(store.commit([other, { ...next, usage: taskRecord(id, { promptTokens: 100 }) }])).rejects.toBeInstanceOf(ConcurrentUpdateError);
        expect(await usageOf(store).get(other.task.id)).toBeUndefined();
        expect(await usageOf(store).get(id)).toMatchObject({ promptTokens: 10, cost: 1 });
      });

      it('applies two commits of one task in one batch in order', async () => {
        const store = ctx.store();
        const created = { ...newTask(), usage: undefined as UsageRecord | undefined };
        const id = created.task.id;
        created.usage = taskRecord(id, { promptTokens: 1 });
        const done = { ...update(created, { state: 'TASK_STATE_COMPLETED' }), usage: taskRecord(id, { outcome: 'TASK_STATE_COMPLETED', final: true, time: T0 + 5, promptTokens: 2, cost: 0.25 }) };
        await store.commit([created, done]);
        expect(await usageOf(store).get(id)).toMatchObject({ outcome: 'TASK_STATE_COMPLETED', final: true, time: T0 + 5, promptTokens: 3, cost: 0.25 });
      });

      it('refuses a usage record whose id is not the task id', async () => {
        const c = { ...newTask(), usage: taskRecord('someone-else') };
        await expect(ctx.store().commit([c])).rejects.toThrow(/usage record/);
        expect(await ctx.store().getTask(c.agentId, c.task.id)).toBeUndefined();
      });
    });

    describe('write', () => {
      it('inserts call records once: a duplicate id is skipped, also against a task record', async () => {
        const usage = usageOf(ctx.store());
        await usage.write([callRecord('c1', { tool: 'search', keyId: 'k1', promptTokens: 2 })], []);
        await usage.write([callRecord('c1', { tool: 'fetch', promptTokens: 50 }), callRecord('c2')], []);
        expect(await usage.get('c1')).toEqual(callRecord('c1', { tool: 'search', keyId: 'k1', promptTokens: 2 }));
        expect(await usage.get('c2')).toEqual(callRecord('c2'));
        // two of the same id in one batch
        await usage.write([callRecord('c3', { outcome: 'first' }), callRecord('c3', { outcome: 'second' })], []);
        expect((await usage.get('c3'))?.outcome).toBe('first');
        const task = { ...newTask(), usage: undefined as UsageRecord | undefined };
        task.usage = taskRecord(task.task.id, { promptTokens: 4 });
        await ctx.store().commit([task]);
        await usage.write([callRecord(task.task.id, { promptTokens: 99 })], []);
        expect(await usage.get(task.task.id)).toMatchObject({ kind: 'task', promptTokens: 4 });
      });

      it('amends the timing and size of a task record, keeping what an amend leaves out; a missing id is ignored', async () => {
        const store = ctx.store();
        const usage = usageOf(store);
        const created = { ...newTask(), usage: undefined as UsageRecord | undefined };
        const id = created.task.id;
        const contextId = created.task.contextId;
        created.usage = taskRecord(id, { contextId, latencyMs: 5, bytesIn: 10 });
        await store.commit([created]);
        await usage.write(
          [],
          [
            { id, ttfbMs: 1.5, bytesOut: 77 },
            { id: 'missing', latencyMs: 9 },
          ],
        );
        expect(await usage.get(id)).toEqual(taskRecord(id, { contextId, latencyMs: 5, ttfbMs: 1.5, bytesIn: 10, bytesOut: 77 }));
        expect(await usage.get('missing')).toBeUndefined();
        // a second amend replaces what it carries
        await usage.write([], [{ id, latencyMs: 8 }]);
        expect(await usage.get(id)).toEqual(taskRecord(id, { contextId, latencyMs: 8, ttfbMs: 1.5, bytesIn: 10, bytesOut: 77 }));
        // an amend that reaches the store before its task's commit (another replica's queue) still applies
        const later = { ...newTask(), usage: undefined as UsageRecord | undefined };
        await usage.write([], [{ id: later.task.id, latencyMs: 4 }]);
        later.usage = taskRecord(later.task.id, { contextId: later.task.contextId });
        await store.commit([later]);
        expect((await usage.get(later.task.id))?.latencyMs).toBe(4);
      });

      it('applies a flush of many amends in order, an id amended twice in it keeping the later values and the earlier ones it leaves out', async () => {
        const store = ctx.store();
        const usage = usageOf(store);
        const tasks = Array.from({ length: 150 }, () => ({ ...newTask(), usage: undefined as UsageRecord | undefined }));
        for (const t of tasks) t.usage = taskRecord(t.task.id, { contextId: t.task.contextId });
        await store.commit(tasks);
        // 150 amends and a second one for tasks[3] and tasks[140] (beyond any statement's rows): 152 in one write
        const amends: UsageAmend[] = tasks.map((t, i) => ({ id: t.task.id, ttfbMs: i, latencyMs: i + 0.5, bytesIn: 1000 + i, bytesOut: 2000 + i }));
        amends.push({ id: tasks[3]!.task.id, latencyMs: 99 }, { id: tasks[140]!.task.id, bytesOut: 7 });
        await usage.write([], amends);
        for (const [i, t] of tasks.entries()) {
          const expected = { ttfbMs: i, latencyMs: i === 3 ? 99 : i + 0.5, bytesIn: 1000 + i, bytesOut: i === 140 ? 7 : 2000 + i };
          expect(await usage.get(t.task.id)).toEqual(taskRecord(t.task.id, { contextId: t.task.contextId, ...expected }));
        }
      });
    });

    describe('query', () => {
      const records = dataset(600);
      const from = DATA_START + 17 * 60_000;
      const to = DATA_END - 23 * 60_000;

      it('answers every dimension, bucket and filter like a computation over the final records', async () => {
        const usage = usageOf(ctx.store());
        await usage.write(records, []);
        for (const q of queries(from, to)) expectAnswer(await usage.query(q), records, q);
      });

      it('answers the same after rolling up part of the range and all of it (rows on both sides of the watermark)', async () => {
        const usage = usageOf(ctx.store());
        await usage.write(records, []);
        const before = await Promise.all(queries(from, to).map((q) => usage.query(q)));
        // a watermark in the middle of the data: some hours from usage_hourly, the rest raw
        const middle = T0 + 5 * HOUR + 1234;
        expect(await usage.rollup(middle)).toBe((T0 + 5 * HOUR - (DATA_START - (DATA_START % HOUR))) / HOUR);
        expect(await usage.rolledUntil(HOURLY)).toBe(T0 + 5 * HOUR);
        // days completed by the hourly rollup are rolled up per day too
        expect(await usage.rolledUntil(DAILY)).toBe(T0);
        const partly = await Promise.all(queries(from, to).map((q) => usage.query(q)));
        expect(partly).toEqual(before);
        // rolling up again changes nothing
        expect(await usage.rollup(middle)).toBe(0);
        expect(await Promise.all(queries(from, to).map((q) => usage.query(q)))).toEqual(before);
        await usage.rollup(DATA_END + HOUR);
        expect(await usage.rolledUntil(DAILY)).toBe(DATA_END - (DATA_END % DAY));
        const all = await Promise.all(queries(from, to).map((q) => usage.query(q)));
        expect(all).toEqual(before);
        // and both still match the plain computation, also on ranges ending inside the rolled-up hours
        for (const q of [...queries(from, to), ...queries(DATA_START + 3 * HOUR + 1, T0 + 2 * HOUR - 1)]) expectAnswer(await usage.query(q), records, q);
      });

      it("stores each day's histograms as one text per row, holding the buckets of its hours", async () => {
        const usage = usageOf(ctx.store());
        await usage.write(records, []);
        await usage.rollup(DATA_END + HOUR);
        const db = (usage as unknown as { db: Kysely<Database> }).db;
        const daily = await db.selectFrom('usage_daily').selectAll().execute();
        const hourly = await db.selectFrom('usage_hourly').selectAll().execute();
        expect(daily.length).toBeGreaterThan(0);
        for (const [text, columns] of [
          ['lat_hist', LATENCY_COLUMNS],
          ['dur_hist', DURATION_COLUMNS],
        ] as const) {
          const fromDaily = new Map<number, number[]>();
          for (const row of daily) {
            const counts = columns.map(() => 0);
            addHistogramText(row[text], counts);
            // one entry per non-empty bucket, in bucket order: the text histogramText writes
            expect(row[text]).toBe(histogramText(counts));
            const day = fromDaily.get(Number(row.day)) ?? columns.map(() => 0);
            counts.forEach((n, i) => (day[i]! += n));
            fromDaily.set(Number(row.day), day);
          }
          const fromHourly = new Map<number, number[]>();
          for (const row of hourly) {
            const day = Number(row.hour) - (Number(row.hour) % DAY);
            if (!fromDaily.has(day)) continue;
            const counts = fromHourly.get(day) ?? columns.map(() => 0);
            columns.forEach((c, i) => (counts[i]! += Number(row[c as `lat_le_${string}`]) - (i === 0 ? 0 : Number(row[columns[i - 1] as `lat_le_${string}`]))));
            fromHourly.set(day, counts);
          }
          expect(fromDaily).toEqual(fromHourly);
        }
      });

      it('counts a record that became final after rollup in its (not yet rolled up) hour, once', async () => {
        const store = ctx.store();
        const usage = usageOf(store);
        const created = { ...newTask(), usage: undefined as UsageRecord | undefined };
        const id = created.task.id;
        created.usage = taskRecord(id, { time: T0 + 10 * 60_000 });
        await store.commit([created]);
        await usage.write([callRecord('c1', { time: T0 + 20 * 60_000 })], []);
        expect(await usage.rollup(T0 + 2 * HOUR)).toBe(2);
        const q: UsageQuery = { groupBy: ['kind'], filters: {}, from: T0, to: T0 + 4 * HOUR };
        // the running task is not counted; the call is (from the rollup)
        expect((await usage.query(q)).map((g) => [g.key.kind, g.calls])).toEqual([['call', 1]]);
        await store.commit([{ ...update(created, { state: 'TASK_STATE_COMPLETED' }), usage: taskRecord(id, { final: true, outcome: 'TASK_STATE_COMPLETED', time: T0 + 2 * HOUR + 60_000, promptTokens: 5 }) }]);
        const answer = async () => (await usage.query(q)).map((g) => [g.key.kind, g.calls, g.promptTokens]);
        expect(await answer()).toEqual([
          ['call', 1, 0],
          ['task', 1, 5],
        ]);
        await usage.rollup(T0 + 4 * HOUR);
        expect(await answer()).toEqual([
          ['call', 1, 0],
          ['task', 1, 5],
        ]);
      });

      it('limits the groups, largest first', async () => {
        const usage = usageOf(ctx.store());
        await usage.write(
          [1, 2, 3, 4].flatMap((n) => Array.from({ length: n }, (_, i) => callRecord(`a${n}-${i}`, { agent: `agent-${n}` }))),
          [],
        );
        const groups = await usage.query({ groupBy: ['agent'], filters: {}, from: T0, to: T0 + 1, limit: 2 });
        expect(groups.map((g) => [g.key.agent, g.calls])).toEqual([
          ['agent-4', 4],
          ['agent-3', 3],
        ]);
        expect(await usage.query({ groupBy: ['agent'], filters: {}, from: T0 + 1, to: T0 + 1 })).toEqual([]);
      });

      it('reports exact percentiles when a group has one value, null without any', async () => {
        const usage = usageOf(ctx.store());
        await usage.write([callRecord('c1', { latencyMs: 7.5 }), callRecord('c2', { latencyMs: 7.5, agent: 'x' }), callRecord('c3', { agent: 'y' })], []);
        await usage.rollup(T0 + HOUR);
        const groups = await usage.query({ groupBy: ['agent'], filters: {}, from: T0 - HOUR, to: T0 + HOUR });
        const by = Object.fromEntries(groups.map((g) => [String(g.key.agent), g]));
        expect(by.null?.latencyMs).toEqual({ p50: 7.5, p95: 7.5, p99: 7.5 });
        expect(by.y?.latencyMs).toBeNull();
        expect(by.y?.durationMs).toBeNull();
      });
    });

    describe.skipIf(!ctx.options.openPeer)('two replicas', () => {
      it('roll up at once without counting anything twice', async () => {
        const peer = await ctx.options.openPeer!();
        try {
          await peer.migrate();
          const usage = usageOf(ctx.store());
          const records = dataset(300);
          await usage.write(records, []);
          const qs = queries(DATA_START, DATA_END);
          const before = await Promise.all(qs.map((q) => usage.query(q)));
          await Promise.all([usage.rollup(DATA_END), usageOf(peer).rollup(DATA_END), usage.rollup(DATA_END - 7 * HOUR), usageOf(peer).rollup(DATA_END)]);
          expect(await usage.rolledUntil(HOURLY)).toBe(DATA_END - (DATA_END % HOUR));
          expect(await Promise.all(qs.map((q) => usageOf(peer).query(q)))).toEqual(before);
        } finally {
          await peer.close();
        }
      });
    });

    it('prunes raw rows and whole rolled-up hours before the cut', async () => {
      const usage = usageOf(ctx.store());
      const records = [0, 1, 2, 3].map((h) => callRecord(`h${h}`, { time: T0 + h * HOUR + 30 * 60_000 }));
      await usage.write(records, []);
      await usage.rollup(T0 + 4 * HOUR);
      const total = async () => (await usage.query({ groupBy: [], filters: {}, from: T0, to: T0 + 4 * HOUR }))[0]?.calls ?? 0;
      expect(await total()).toBe(4);
      // the cut falls inside hour 2: raw rows before it go, rollups of hours 0 and 1 go
      expect(await usage.prune(T0 + 2 * HOUR + 45 * 60_000)).toBe(3);
      expect(await usage.get('h2')).toBeUndefined();
      expect(await usage.get('h3')).toBeDefined();
      expect(await total()).toBe(2);
      expect(await usage.prune(T0)).toBe(0);
    });
  });
}
