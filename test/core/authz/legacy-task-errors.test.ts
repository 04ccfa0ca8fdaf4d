/**
 * Legacy JSON-RPC (v0.3, and v0.1 sent without an A2A-Version header) under a key holding only
 * a2a:publish (issue 19, D5). The v0.1 fallback of the methods v0.3 shares (tasks/get, cancel,
 * resubscribe) once probed with GetTask, which needs a2a:discover: its refusal escaped the handler
 * as -32603 with a null id. Every answer here is spec-shaped, carries the request's id, and a
 * sender needs no more than a2a:publish to send to and cancel its own v0.1 tasks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthzServer, type AuthzServer } from './support.js';

const PROBE = new URL('../../fixtures/agents/probe-agent.ts', import.meta.url).pathname;

let s: AuthzServer;
let publishOnly: string;
let otherFull: string;

beforeAll(async () => {
  s = await startAuthzServer({ agents: [{ id: 'probe', module: PROBE }] });
  publishOnly = await s.key('pat', ['a2a:publish']);
  otherFull = await s.key('quinn', ['a2a:publish', 'a2a:discover']);
}, 30_000);

afterAll(async () => s?.stop());

async function call(method: string, params: unknown, key: string, version?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${s.http}/a2a/probe`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, ...(version ? { 'a2a-version': version } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'req-42', method, params }),
  });
  return { status: res.status, body: await res.json() };
}

const v01Message = (text: string) => ({ role: 'user', parts: [{ type: 'text', text }] });

/** A task of quinn's, waiting for input (cancelable). */
async function quinnsTask(): Promise<string> {
  const r = await call('message/send', { message: { kind: 'message', messageId: `m-${Date.now()}`, role: 'user', parts: [{ kind: 'text', text: 'input' }] } }, otherFull, '0.3');
  expect(r.body.result.status.state).toBe('input-required');
  return r.body.result.id as string;
}

describe('v0.3 / v0.1 tasks/cancel with a2a:publish only', () => {
  it.each([
    ['v0.3', '0.3'],
    ['v0.1 (no A2A-Version header)', undefined],
  ])('%s: an unknown task is TaskNotFound with the request id', async (_n, version) => {
    const r = await call('tasks/cancel', { id: 'no-such-task' }, publishOnly, version);
    expect(r.status).toBe(200);
    expect(r.body.id).toBe('req-42');
    expect(r.body.error.code).toBe(-32001);
    expect(r.body.error.message).toBe('Task no-such-task was not found');
  });

  it.each([
    ['v0.3', '0.3'],
    ['v0.1 (no A2A-Version header)', undefined],
  ])("%s: another subject's task is TaskNotFound with the request id, and stays as it was", async (_n, version) => {
    const task = await quinnsTask();
    const r = await call('tasks/cancel', { id: task }, publishOnly, version);
    expect(r.body.id).toBe('req-42');
    expect(r.body.error.code).toBe(-32001);
    const still = await call('tasks/get', { id: task }, otherFull, '0.3');
    expect(still.body.result.status.state).toBe('input-required');
  });

  it('v0.3 tasks/get and tasks/resubscribe without a2a:discover are 403 with the request id, never -32603', async () => {
    for (const method of ['tasks/get', 'tasks/resubscribe']) {
      const r = await call(method, { id: 'no-such-task' }, publishOnly, '0.3');
      expect(r.status, method).toBe(403);
      expect(r.body.id).toBe('req-42');
      expect(r.body.error.code).not.toBe(-32603);
    }
  });
});

describe('v0.1 tasks/send and tasks/cancel with a2a:publish only', () => {
  it('creates the named task, continues it, and cancels it', async () => {
    const first = await call('tasks/send', { id: 'pat-1', message: v01Message('input') }, publishOnly);
    expect(first.body.error, JSON.stringify(first.body)).toBeUndefined();
    expect(first.body.result.id).toBe('pat-1');
    expect(first.body.result.status.state).toBe('input-required');
    const again = await call('tasks/send', { id: 'pat-1', message: v01Message('input') }, publishOnly);
    expect(again.body.result.id).toBe('pat-1');
    // The same task continued: its history holds both user messages.
    expect(again.body.result.history.filter((m: { role: string }) => m.role === 'user')).toHaveLength(2);
    const canceled = await call('tasks/cancel', { id: 'pat-1' }, publishOnly);
    expect(canceled.body.id).toBe('req-42');
    expect(canceled.body.result.status.state).toBe('canceled');
  });
});
