/** A2A v1.0 §7 historyLength on SendMessage, GetTask and ListTasks: unset → all, 0 → none, N → N newest, negative → -32602. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, userMessage, type TestServer } from '../../support/server.js';
import { codeOf, startProbeServer } from './helpers.js';

describe('historyLength', () => {
  let s: TestServer;
  let probe: string;
  /** a task whose history is [user1, agent1, user2, agent2] */
  let taskId: string;
  let contextId: string;
  let full: Array<{ messageId: string; role: string }>;

  beforeAll(async () => {
    s = await startProbeServer();
    probe = `${s.http}/a2a/probe`;
    contextId = `ctx-history-${Date.now()}`;
    const first = await rpc(probe, 'SendMessage', { message: userMessage('input', { contextId }) });
    taskId = first.body.result.task.id;
    const second = await rpc(probe, 'SendMessage', { message: userMessage('input', { taskId }) });
    expect(second.body.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    full = second.body.result.task.history;
  });
  afterAll(async () => s?.stop());

  it('unset returns the whole history (both user messages and both agent questions, oldest first)', () => {
    expect(full.map((m) => m.role)).toEqual(['ROLE_USER', 'ROLE_AGENT', 'ROLE_USER', 'ROLE_AGENT']);
  });

  describe('on SendMessage (configuration.historyLength)', () => {
    it('0 omits the history key entirely', async () => {
      const r = await rpc(probe, 'SendMessage', { message: userMessage('done'), configuration: { historyLength: 0 } });
      expect(r.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(r.body.result.task).not.toHaveProperty('history');
    });

    it('N returns the N newest messages', async () => {
      const first = await rpc(probe, 'SendMessage', { message: userMessage('input') });
      const r = await rpc(probe, 'SendMessage', { message: userMessage('input', { taskId: first.body.result.task.id }), configuration: { historyLength: 2 } });
      const h = r.body.result.task.history;
      expect(h).toHaveLength(2);
      expect(h[0].role).toBe('ROLE_USER');
      expect(h[0].taskId).toBe(first.body.result.task.id);
      expect(h[1].role).toBe('ROLE_AGENT');
      // it is the second exchange, not the first
      expect(h[0].messageId).not.toBe(first.body.result.task.history[0].messageId);
    });

    it('N larger than the history returns all of it', async () => {
      const r = await rpc(probe, 'SendMessage', { message: userMessage('plain'), configuration: { historyLength: 50 } });
      expect(r.body.result.task.history).toHaveLength(1);
    });

    it('a negative value is InvalidParams (-32602) and starts no task', async () => {
      const r = await rpc(probe, 'SendMessage', { message: userMessage('never', { contextId: 'ctx-negative-history' }), configuration: { historyLength: -1 } });
      expect(codeOf(r.body)).toBe(-32602);
      const l = await rpc(probe, 'ListTasks', { contextId: 'ctx-negative-history' });
      expect(l.body.result.tasks).toEqual([]);
    });
  });

  describe('on GetTask', () => {
    it('unset → all', async () => {
      const g = await rpc(probe, 'GetTask', { id: taskId });
      expect(g.body.result.history.map((m: { messageId: string }) => m.messageId)).toEqual(full.map((m) => m.messageId));
    });
    it('0 → no history key', async () => {
      const g = await rpc(probe, 'GetTask', { id: taskId, historyLength: 0 });
      expect(g.body.result).not.toHaveProperty('history');
      expect(g.body.result.id).toBe(taskId);
    });
    it('N → the N newest, in order', async () => {
      const g = await rpc(probe, 'GetTask', { id: taskId, historyLength: 3 });
      expect(g.body.result.history.map((m: { messageId: string }) => m.messageId)).toEqual(full.slice(1).map((m) => m.messageId));
      const g1 = await rpc(probe, 'GetTask', { id: taskId, historyLength: 1 });
      expect(g1.body.result.history.map((m: { messageId: string }) => m.messageId)).toEqual([full[3]!.messageId]);
    });
    it('negative → InvalidParams (-32602)', async () => {
      const g = await rpc(probe, 'GetTask', { id: taskId, historyLength: -2 });
      expect(codeOf(g.body)).toBe(-32602);
    });
    it('over HTTP+JSON: ?historyLength=N, =0 and a negative value (400)', async () => {
      const get = (q: string) => fetch(`${probe}/tasks/${taskId}${q}`, { headers: { 'a2a-version': '1.0' } });
      const two = await get('?historyLength=2');
      expect(two.status).toBe(200);
      expect((await two.json()).history.map((m: { messageId: string }) => m.messageId)).toEqual(full.slice(2).map((m) => m.messageId));
      const zero = await get('?historyLength=0');
      expect(await zero.json()).not.toHaveProperty('history');
      const neg = await get('?historyLength=-1');
      expect(neg.status).toBe(400);
      expect((await neg.json()).error.details[0].reason).toBe('INVALID_PARAMS');
    });
  });

  describe('on ListTasks', () => {
    it('unset → all, 0 → no history key, N → N newest', async () => {
      const all = await rpc(probe, 'ListTasks', { contextId });
      expect(all.body.result.tasks).toHaveLength(1);
      expect(all.body.result.tasks[0].history).toHaveLength(4);
      const none = await rpc(probe, 'ListTasks', { contextId, historyLength: 0 });
      expect(none.body.result.tasks[0]).not.toHaveProperty('history');
      const two = await rpc(probe, 'ListTasks', { contextId, historyLength: 2 });
      expect(two.body.result.tasks[0].history.map((m: { messageId: string }) => m.messageId)).toEqual(full.slice(2).map((m) => m.messageId));
    });
    it('negative → InvalidParams (-32602)', async () => {
      const r = await rpc(probe, 'ListTasks', { historyLength: -1 });
      expect(codeOf(r.body)).toBe(-32602);
    });
  });
});
