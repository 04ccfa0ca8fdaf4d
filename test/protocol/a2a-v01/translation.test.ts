/** v0.1 translation units: task-id namespacing, stream event shapes and artifact indexes, errors. */
import { describe, expect, it } from 'vitest';
import { A2AError, invalidParams } from '../../../src/protocol/a2a/errors.js';
import { errorFromV1 } from '../../../src/protocol/a2a-v01/errors.js';
import { V01StreamTranslator } from '../../../src/protocol/a2a-v01/events.js';
import { messageToV1 } from '../../../src/protocol/a2a-v01/messages.js';
import { clientTaskId, serverTaskId } from '../../../src/protocol/a2a-v01/task-ids.js';
import { taskFromV1 } from '../../../src/protocol/a2a-v01/tasks.js';

describe('v0.1 task ids', () => {
  it('namespaces a client id per agent and caller, and recovers it', () => {
    const a = serverTaskId('job-1', 'echo', 'alice');
    expect(a).toMatch(/^job-1\.[0-9a-f]{12}$/);
    expect(serverTaskId('job-1', 'echo', 'alice')).toBe(a);
    expect(serverTaskId('job-1', 'echo', 'bob')).not.toBe(a);
    expect(serverTaskId('job-1', 'other', 'alice')).not.toBe(a);
    expect(clientTaskId(a)).toBe('job-1');
  });

  it('keeps client ids that contain dots, and leaves server-made ids alone', () => {
    expect(clientTaskId(serverTaskId('a.b.c', 'echo', 'alice'))).toBe('a.b.c');
    expect(clientTaskId('019a2b3c-0000-7000-8000-000000000000')).toBe('019a2b3c-0000-7000-8000-000000000000');
  });
});

describe('v0.1 stream events', () => {
  const status = (state: 'TASK_STATE_WORKING' | 'TASK_STATE_COMPLETED' | 'TASK_STATE_REJECTED') => ({ statusUpdate: { taskId: 't.x', contextId: 'c', status: { state } } });
  const artifact = (artifactId: string, text: string, append?: boolean) => ({
    artifactUpdate: { taskId: 't.x', contextId: 'c', artifact: { artifactId, parts: [{ text }] }, ...(append ? { append } : {}) },
  });

  it('numbers artifacts by first appearance, chunks of one artifact keep its index', () => {
    const t = new V01StreamTranslator('job');
    expect(t.next(artifact('a', 'one'))).toEqual({ id: 'job', artifact: { parts: [{ type: 'text', text: 'one' }], index: 0 } });
    expect(t.next(artifact('b', 'two'))).toMatchObject({ artifact: { index: 1 } });
    expect(t.next(artifact('a', 'more', true))).toMatchObject({ artifact: { index: 0, append: true } });
  });

  it('seeds indexes from the task snapshot, so a resubscribed stream continues the numbering', () => {
    const t = new V01StreamTranslator('job');
    const snap = t.next({
      task: {
        id: 't.x',
        contextId: 'c',
        status: { state: 'TASK_STATE_WORKING' },
        artifacts: [
          { artifactId: 'a', parts: [] },
          { artifactId: 'b', parts: [] },
        ],
      },
    });
    expect(snap).toEqual({ id: 'job', status: { state: 'working' }, final: false });
    expect(t.next(artifact('b', 'x'))).toMatchObject({ artifact: { index: 1 } });
    expect(t.next(artifact('c', 'y'))).toMatchObject({ artifact: { index: 2 } });
  });

  it('marks terminal states final and reads rejected as failed', () => {
    const t = new V01StreamTranslator('job');
    expect(t.next(status('TASK_STATE_WORKING'))).toEqual({ id: 'job', status: { state: 'working' }, final: false });
    expect(t.next(status('TASK_STATE_REJECTED'))).toEqual({ id: 'job', status: { state: 'failed' }, final: true });
  });

  it('a direct message becomes a final completed status carrying it', () => {
    const t = new V01StreamTranslator('job');
    expect(t.next({ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } })).toEqual({
      id: 'job',
      status: { state: 'completed', message: { role: 'agent', parts: [{ type: 'text', text: 'hi' }] } },
      final: true,
    });
  });
});

describe('v0.1 shapes and errors', () => {
  it('a task keeps the client id and names its context sessionId', () => {
    expect(taskFromV1({ id: serverTaskId('job', 'a', 's'), contextId: 'ctx', status: { state: 'TASK_STATE_AUTH_REQUIRED' } })).toEqual({
      id: 'job',
      sessionId: 'ctx',
      status: { state: 'input-required' },
    });
  });

  it('mints a messageId for a v0.1 message and refuses agent-role client messages', () => {
    const m = messageToV1({ role: 'user', parts: [{ type: 'text', text: 'x' }] });
    expect(m.messageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(() => messageToV1({ role: 'agent', parts: [{ type: 'text', text: 'x' }] })).toThrow(/message\.role/);
  });

  it('renumbers the codes v0.1 used for other errors, and names client ids in messages', () => {
    expect(errorFromV1(new A2AError('Unauthenticated'))).toEqual({ code: -32007, message: 'Authentication required', data: { reason: 'UNAUTHENTICATED' } });
    expect(errorFromV1(new A2AError('PermissionDenied')).code).toBe(-32008);
    expect(errorFromV1(new A2AError('InvalidAgentResponse')).code).toBe(-32603);
    expect(errorFromV1(new A2AError('VersionNotSupported')).code).toBe(-32600);
    expect(errorFromV1(new A2AError('TaskNotFound', `Task ${serverTaskId('job', 'a', 's')} was not found`)).message).toBe('Task job was not found');
    expect(errorFromV1(invalidParams('id', 'is required'))).toMatchObject({ code: -32602, data: { fieldViolations: [{ field: 'id', description: 'is required' }] } });
  });
});
