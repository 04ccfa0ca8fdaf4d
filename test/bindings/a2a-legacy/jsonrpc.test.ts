/**
 * The hand-over of older JSON-RPC calls (src/bindings/a2a-legacy/jsonrpc.ts), in process: which
 * version a slash method is served as, and what the call tells the core through the typed
 * CallContext fields (wireVersion, clientTaskId) instead of hidden ones.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { handleLegacyCall } from '../../../src/bindings/a2a-legacy/jsonrpc.js';
import type { A2AHandler, CallContext } from '../../../src/core/a2a-handler.js';
import { ANONYMOUS } from '../../../src/core/authz/principal.js';
import { chosenTaskIdOf } from '../../../src/core/tasks/chosen-task-id.js';
import { pushBodyVersionOfCall } from '../../../src/core/push/push-body-version.js';
import { A2AError } from '../../../src/protocol/a2a/errors.js';
import type { Task } from '../../../src/protocol/a2a/types.js';
import { serverTaskId } from '../../../src/protocol/a2a-v01/task-ids.js';

const task = (id: string): Task => ({ id, contextId: 'ctx-1', status: { state: 'TASK_STATE_COMPLETED' } });

/** Records every call's context; knows only the tasks in `known`. */
function recordingHandler(known: readonly string[]) {
  const calls: Array<{ op: string; ctx: CallContext }> = [];
  const handler = {
    hasAgent: () => true,
    agentExtensions: () => undefined,
    async getTask(ctx: CallContext, req: { id: string }) {
      calls.push({ op: 'getTask', ctx });
      if (!known.includes(req.id)) throw new A2AError('TaskNotFound', `Task ${req.id} was not found`);
      return task(req.id);
    },
    async sendMessage(ctx: CallContext) {
      calls.push({ op: 'sendMessage', ctx });
      return { task: task(ctx.clientTaskId ?? 'fresh') };
    },
  } as unknown as A2AHandler;
  return { handler, calls };
}

const req = { headers: {} } as IncomingMessage;
const res = { headersSent: false } as ServerResponse;

function call(handler: A2AHandler, method: string, params: unknown) {
  return handleLegacyCall({ handler, keepAliveMs: 15_000 }, { req, res, id: 1, method, params, routeAgentId: 'echo', defaultAgentId: 'echo', principal: ANONYMOUS, beforeStream: undefined });
}

describe('legacy JSON-RPC hand-over', () => {
  it('serves a v0.3 method as v0.3: wireVersion 0.3, no client task id', async () => {
    const { handler, calls } = recordingHandler(['t-1']);
    const reply = await call(handler, 'tasks/get', { id: 't-1' });
    expect(JSON.parse(reply!.body!).result).toMatchObject({ id: 't-1', kind: 'task', status: { state: 'completed' } });
    expect(calls.map((c) => c.op)).toEqual(['getTask']);
    expect(calls[0]!.ctx.wireVersion).toBe('0.3');
    expect(pushBodyVersionOfCall(calls[0]!.ctx)).toBe('0.3');
    expect(chosenTaskIdOf(calls[0]!.ctx)).toBeUndefined();
  });

  it('serves tasks/send as v0.1: wireVersion 0.1 and the client-named task id, namespaced per caller', async () => {
    const { handler, calls } = recordingHandler([]);
    const reply = await call(handler, 'tasks/send', { id: 'mine', message: { role: 'user', parts: [{ type: 'text', text: 'hi' }] } });
    const expected = serverTaskId('mine', 'echo', ANONYMOUS.subject);
    expect(calls[0]!.ctx).toMatchObject({ wireVersion: '0.1', clientTaskId: expected });
    expect(chosenTaskIdOf(calls[0]!.ctx)).toBe(expected);
    expect(JSON.parse(reply!.body!).result.id).toBe('mine');
  });

  it('tries a shared method as v0.1 when the id is no v0.3 task', async () => {
    const { handler, calls } = recordingHandler([serverTaskId('named', 'echo', ANONYMOUS.subject)]);
    const reply = await call(handler, 'tasks/get', { id: 'named' });
    expect(calls.map((c) => c.ctx.wireVersion)).toEqual(['0.3', '0.1']);
    expect(JSON.parse(reply!.body!).result.id).toBe('named');
  });

  it('answers TaskNotFound when neither version knows the id', async () => {
    const { handler, calls } = recordingHandler([]);
    const reply = await call(handler, 'tasks/get', { id: 'nobody' });
    expect(calls).toHaveLength(2);
    expect(JSON.parse(reply!.body!).error.code).toBe(-32001);
  });

  it('answers an unknown slash method with MethodNotFound in the v0.3 shape, without calling the core', async () => {
    const { handler, calls } = recordingHandler([]);
    const reply = await call(handler, 'tasks/nothing', {});
    expect(JSON.parse(reply!.body!)).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32601 } });
    expect(calls).toHaveLength(0);
  });
});
