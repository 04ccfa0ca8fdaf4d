/**
 * A2A v1.0 §7 ListTasks (caller-scoped, newest first, cursor pagination, filters, includeArtifacts)
 * and owner scoping of every task operation: another caller's task looks exactly like a missing one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, userMessage, type TestServer } from '../../support/server.js';
import { codeOf, startProbeServer } from './helpers.js';

const KEY_A = 'key-alice-0123456789abcdef';
const KEY_B = 'key-bob-0123456789abcdef00';
const asA = { authorization: `Bearer ${KEY_A}` };
const asB = { authorization: `Bearer ${KEY_B}` };

describe('ListTasks and owner scoping', () => {
  let s: TestServer;
  let probe: string;
  beforeAll(async () => {
    s = await startProbeServer({
      auth: {
        apiKeys: [
          { key: KEY_A, subject: 'alice' },
          { key: KEY_B, subject: 'bob' },
        ],
      },
    });
    probe = `${s.http}/a2a/probe`;
  });
  afterAll(async () => s?.stop());

  /** Creates tasks one after another, each with a status timestamp strictly later than the previous one. */
  async function createTasks(n: number, contextId: string, headers: Record<string, string>, text = (i: number) => `task-${i}`) {
    const out: any[] = [];
    for (let i = 0; i < n; i++) {
      const prev = out.at(-1)?.status.timestamp;
      if (prev) while (new Date().toISOString() <= prev) await new Promise((r) => setTimeout(r, 1));
      const r = await rpc(probe, 'SendMessage', { message: userMessage(text(i), { contextId }) }, headers);
      expect(r.body.error).toBeUndefined();
      out.push(r.body.result.task);
    }
    return out;
  }

  describe('caller scoping', () => {
    let taskOfA: any;
    let runningOfA: any;
    const ctx = `ctx-owner-${Date.now()}`;
    beforeAll(async () => {
      [taskOfA] = await createTasks(1, ctx, asA);
      runningOfA = (await rpc(probe, 'SendMessage', { message: userMessage('input', { contextId: ctx }) }, asA)).body.result.task;
    });

    it('lists the caller’s own tasks', async () => {
      const l = await rpc(probe, 'ListTasks', { contextId: ctx }, asA);
      expect(l.body.result.tasks.map((t: any) => t.id).sort()).toEqual([taskOfA.id, runningOfA.id].sort());
    });

    it('hides them from another key and from anonymous callers, even without filters', async () => {
      for (const headers of [asB, {}]) {
        const l = await rpc(probe, 'ListTasks', { contextId: ctx }, headers);
        expect(l.body.result.tasks).toEqual([]);
        expect(l.body.result.totalSize).toBe(0);
        const all = await rpc(probe, 'ListTasks', { pageSize: 100 }, headers);
        const ids = all.body.result.tasks.map((t: any) => t.id);
        expect(ids).not.toContain(taskOfA.id);
        expect(ids).not.toContain(runningOfA.id);
      }
    });

    it('makes another owner’s task look like TaskNotFound on GetTask, CancelTask, SubscribeToTask and SendMessage', async () => {
      const getB = await rpc(probe, 'GetTask', { id: taskOfA.id }, asB);
      const getMissing = await rpc(probe, 'GetTask', { id: 'no-such-task' }, asB);
      expect(codeOf(getB.body)).toBe(-32001);
      // indistinguishable from a task that does not exist
      expect(JSON.stringify(getB.body.error).replaceAll(taskOfA.id, 'ID')).toBe(JSON.stringify(getMissing.body.error).replaceAll('no-such-task', 'ID'));
      expect(codeOf((await rpc(probe, 'GetTask', { id: taskOfA.id })).body)).toBe(-32001);
      expect(codeOf((await rpc(probe, 'CancelTask', { id: runningOfA.id }, asB)).body)).toBe(-32001);
      expect(codeOf((await rpc(probe, 'SubscribeToTask', { id: runningOfA.id }, asB)).body)).toBe(-32001);
      expect(codeOf((await rpc(probe, 'SendMessage', { message: userMessage('hijack', { taskId: runningOfA.id }) }, asB)).body)).toBe(-32001);
      expect(codeOf((await rpc(probe, 'SendMessage', { message: userMessage('refs', { referenceTaskIds: [taskOfA.id] }) }, asB)).body)).toBe(-32001);
      // push configs of another owner's task: TaskNotFound too (checked before the webhook URL)
      const hook = 'https://8.8.8.8/hook';
      expect(codeOf((await rpc(probe, 'CreateTaskPushNotificationConfig', { taskId: runningOfA.id, url: hook }, asB)).body)).toBe(-32001);
      expect(codeOf((await rpc(probe, 'ListTaskPushNotificationConfigs', { taskId: runningOfA.id }, asB)).body)).toBe(-32001);
      // the owner still sees it untouched
      const g = await rpc(probe, 'GetTask', { id: runningOfA.id }, asA);
      expect(g.body.result.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(g.body.result.history).toHaveLength(2);
    });

    it('makes another owner’s task look like TaskNotFound over HTTP+JSON (404)', async () => {
      const res = await fetch(`${probe}/tasks/${taskOfA.id}`, { headers: { 'a2a-version': '1.0', ...asB } });
      expect(res.status).toBe(404);
      expect((await res.json()).error.details[0].reason).toBe('TASK_NOT_FOUND');
    });

    it('rejects a wrong key instead of treating it as anonymous', async () => {
      const r = await rpc(probe, 'ListTasks', {}, { authorization: 'Bearer not-a-valid-key-at-all' });
      expect(r.status).toBe(401);
    });
  });

  describe('ordering, pagination and filters', () => {
    const ctx = `ctx-list-${Date.now()}`;
    let created: any[];
    beforeAll(async () => {
      created = await createTasks(7, ctx, asA);
    });

    it('returns the newest first (by status timestamp)', async () => {
      const l = await rpc(probe, 'ListTasks', { contextId: ctx }, asA);
      expect(l.body.result.tasks.map((t: any) => t.id)).toEqual(created.map((t) => t.id).reverse());
    });

    it('reports pageSize (default 50), totalSize, and an empty nextPageToken on the last page', async () => {
      const l = await rpc(probe, 'ListTasks', { contextId: ctx }, asA);
      expect(l.body.result.pageSize).toBe(50);
      expect(l.body.result.totalSize).toBe(7);
      expect(l.body.result.nextPageToken).toBe('');
    });

    it('always includes nextPageToken, pageSize, totalSize and tasks, even for an empty result', async () => {
      const l = await rpc(probe, 'ListTasks', { contextId: 'ctx-that-has-no-tasks' }, asA);
      expect(l.body.result).toEqual({ tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 });
    });

    it('paginates with a cursor that covers every task exactly once, in order', async () => {
      const seen: string[] = [];
      const tokens: string[] = [];
      let pageToken: string | undefined;
      for (let page = 0; page < 10; page++) {
        const l = await rpc(probe, 'ListTasks', { contextId: ctx, pageSize: 3, ...(pageToken ? { pageToken } : {}) }, asA);
        const r = l.body.result;
        expect(r.pageSize).toBe(3);
        expect(r.totalSize).toBe(7);
        expect(typeof r.nextPageToken).toBe('string');
        seen.push(...r.tasks.map((t: any) => t.id));
        tokens.push(r.nextPageToken);
        if (r.nextPageToken === '') break;
        pageToken = r.nextPageToken;
      }
      expect(tokens.map((t) => t !== '')).toEqual([true, true, false]);
      expect(seen).toEqual(created.map((t) => t.id).reverse());
      expect(new Set(seen).size).toBe(7);
    });

    it('reports the first page’s totalSize on later pages of the listing, even after new tasks (they sort before the cursor)', async () => {
      const ctxLate = `${ctx}-late`;
      await createTasks(3, ctxLate, asA);
      const first = (await rpc(probe, 'ListTasks', { contextId: ctxLate, pageSize: 2 }, asA)).body.result;
      expect(first.totalSize).toBe(3);
      await createTasks(1, ctxLate, asA);
      const second = (await rpc(probe, 'ListTasks', { contextId: ctxLate, pageSize: 2, pageToken: first.nextPageToken }, asA)).body.result;
      expect(second.tasks).toHaveLength(1);
      expect(second.totalSize).toBe(3);
      // A new listing counts again.
      expect((await rpc(probe, 'ListTasks', { contextId: ctxLate, pageSize: 2 }, asA)).body.result.totalSize).toBe(4);
    });

    it('paginates the same way over HTTP+JSON', async () => {
      const seen: string[] = [];
      let token = '';
      for (let i = 0; i < 10; i++) {
        const q = new URLSearchParams({ contextId: ctx, pageSize: '4', ...(token ? { pageToken: token } : {}) });
        const res = await fetch(`${probe}/tasks?${q}`, { headers: { 'a2a-version': '1.0', ...asA } });
        expect(res.status).toBe(200);
        const r = await res.json();
        seen.push(...r.tasks.map((t: any) => t.id));
        token = r.nextPageToken;
        if (!token) break;
      }
      expect(seen).toEqual(created.map((t) => t.id).reverse());
    });

    it('rejects a pageSize outside 1..100 and a forged page token with InvalidParams (-32602)', async () => {
      for (const pageSize of [0, 101, -1]) expect(codeOf((await rpc(probe, 'ListTasks', { pageSize }, asA)).body)).toBe(-32602);
      expect(codeOf((await rpc(probe, 'ListTasks', { pageToken: 'not-a-token' }, asA)).body)).toBe(-32602);
    });

    it('filters by statusTimestampAfter (status timestamp >= the value)', async () => {
      const pivot = created[4].status.timestamp;
      const l = await rpc(probe, 'ListTasks', { contextId: ctx, statusTimestampAfter: pivot }, asA);
      expect(l.body.result.tasks.map((t: any) => t.id)).toEqual(
        created
          .slice(4)
          .map((t) => t.id)
          .reverse(),
      );
      expect(l.body.result.totalSize).toBe(3);
      const future = await rpc(probe, 'ListTasks', { contextId: ctx, statusTimestampAfter: new Date(Date.now() + 60_000).toISOString() }, asA);
      expect(future.body.result.tasks).toEqual([]);
      expect(codeOf((await rpc(probe, 'ListTasks', { statusTimestampAfter: 'yesterday' }, asA)).body)).toBe(-32602);
    });

    it('omits artifacts unless includeArtifacts is true', async () => {
      const off = await rpc(probe, 'ListTasks', { contextId: ctx, pageSize: 2 }, asA);
      for (const t of off.body.result.tasks) expect(t).not.toHaveProperty('artifacts');
      const explicitOff = await rpc(probe, 'ListTasks', { contextId: ctx, pageSize: 2, includeArtifacts: false }, asA);
      for (const t of explicitOff.body.result.tasks) expect(t).not.toHaveProperty('artifacts');
      const on = await rpc(probe, 'ListTasks', { contextId: ctx, pageSize: 2, includeArtifacts: true }, asA);
      expect(on.body.result.tasks[0].artifacts[0].parts[0].text).toBe('task-6');
      // GetTask always has them
      const g = await rpc(probe, 'GetTask', { id: created[0].id }, asA);
      expect(g.body.result.artifacts[0].parts[0].text).toBe('task-0');
    });
  });

  describe('filters by contextId and status', () => {
    const ctx1 = `ctx-filter-1-${Date.now()}`;
    const ctx2 = `ctx-filter-2-${Date.now()}`;
    let done1: any[];
    let waiting1: any;
    let done2: any[];
    beforeAll(async () => {
      done1 = await createTasks(2, ctx1, asA);
      waiting1 = (await rpc(probe, 'SendMessage', { message: userMessage('input', { contextId: ctx1 }) }, asA)).body.result.task;
      done2 = await createTasks(2, ctx2, asA);
    });

    it('contextId returns only that context', async () => {
      const l1 = await rpc(probe, 'ListTasks', { contextId: ctx1 }, asA);
      expect(l1.body.result.tasks.map((t: any) => t.id).sort()).toEqual([...done1.map((t) => t.id), waiting1.id].sort());
      const l2 = await rpc(probe, 'ListTasks', { contextId: ctx2 }, asA);
      expect(l2.body.result.tasks.map((t: any) => t.id).sort()).toEqual(done2.map((t) => t.id).sort());
    });

    it('status returns only tasks in that state (and combines with contextId)', async () => {
      const waiting = await rpc(probe, 'ListTasks', { contextId: ctx1, status: 'TASK_STATE_INPUT_REQUIRED' }, asA);
      expect(waiting.body.result.tasks.map((t: any) => t.id)).toEqual([waiting1.id]);
      expect(waiting.body.result.totalSize).toBe(1);
      const completed = await rpc(probe, 'ListTasks', { contextId: ctx1, status: 'TASK_STATE_COMPLETED' }, asA);
      expect(completed.body.result.tasks.map((t: any) => t.id).sort()).toEqual(done1.map((t) => t.id).sort());
      const all = await rpc(probe, 'ListTasks', { status: 'TASK_STATE_INPUT_REQUIRED', pageSize: 100 }, asA);
      for (const t of all.body.result.tasks) expect(t.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    });

    it('rejects an unknown status with InvalidParams (-32602)', async () => {
      expect(codeOf((await rpc(probe, 'ListTasks', { status: 'TASK_STATE_SLEEPING' }, asA)).body)).toBe(-32602);
    });

    it('filters by status over HTTP+JSON', async () => {
      const res = await fetch(`${probe}/tasks?contextId=${ctx1}&status=TASK_STATE_INPUT_REQUIRED`, { headers: { 'a2a-version': '1.0', ...asA } });
      const r = await res.json();
      expect(r.tasks.map((t: any) => t.id)).toEqual([waiting1.id]);
    });
  });
});
