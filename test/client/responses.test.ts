/**
 * What the client accepts from an agent (a trust boundary): a well-formed answer passes unchanged,
 * and each malformed shape is an InvalidAgentResponse naming the field, never a TypeError later.
 */
import { describe, expect, it } from 'vitest';
import { A2AClientError } from '../../src/client/index.js';
import { asListTasksResponse, asSendMessageResponse, asStreamResponse } from '../../src/client/responses.js';

const task = { id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } };

describe('agent answers', () => {
  it('pass through when well formed', () => {
    expect(asSendMessageResponse({ task })).toEqual({ task });
    expect(asStreamResponse({ artifactUpdate: { taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [] } } })).toMatchObject({ artifactUpdate: { taskId: 't' } });
    expect(asListTasksResponse({ tasks: [task], nextPageToken: '', pageSize: 1, totalSize: 1 }).tasks).toHaveLength(1);
  });

  it.each([
    ['a result with neither task nor message', () => asSendMessageResponse({}), 'result'],
    ['a task without id', () => asSendMessageResponse({ task: { status: { state: 'TASK_STATE_WORKING' } } }), 'task.id'],
    ['a status update without state', () => asStreamResponse({ statusUpdate: { taskId: 't', status: {} } }), 'statusUpdate.status.state'],
    ['an artifact without parts', () => asStreamResponse({ artifactUpdate: { taskId: 't', artifact: { artifactId: 'a' } } }), 'artifactUpdate.artifact.parts'],
    ['an event of no known kind', () => asStreamResponse({ kind: 'task' }), 'event'],
    ['a list whose task has no status', () => asListTasksResponse({ tasks: [{ id: 'x' }] }), 'tasks[0].status.state'],
  ])('refuses %s', (_what, parse, field) => {
    let err: unknown;
    try {
      parse();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(A2AClientError);
    expect((err as A2AClientError).kind).toBe('InvalidAgentResponse');
    expect((err as A2AClientError).message).toContain(field);
  });
});
