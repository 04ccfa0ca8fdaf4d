import { describe, expect, it } from 'vitest';
import { TASK_STATES, type TaskState } from '../../../src/protocol/a2a/types.js';
import { isFinalState, sendResultFromV1, streamResultFromV1 } from '../../../src/protocol/a2a-v03/events.js';

const status = (state: TaskState) => streamResultFromV1({ statusUpdate: { taskId: 't', contextId: 'c', status: { state } } });

describe('v0.3 stream events', () => {
  it('derives final: true at terminal states and input-required, false otherwise', () => {
    const finals = Object.fromEntries(TASK_STATES.map((s) => [s, isFinalState(s)]));
    expect(finals).toEqual({
      TASK_STATE_SUBMITTED: false,
      TASK_STATE_WORKING: false,
      TASK_STATE_COMPLETED: true,
      TASK_STATE_FAILED: true,
      TASK_STATE_CANCELED: true,
      TASK_STATE_INPUT_REQUIRED: true,
      TASK_STATE_REJECTED: true,
      TASK_STATE_AUTH_REQUIRED: false,
    });
    expect(status('TASK_STATE_WORKING')).toEqual({ kind: 'status-update', taskId: 't', contextId: 'c', status: { state: 'working' }, final: false });
    expect(status('TASK_STATE_FAILED')).toMatchObject({ final: true, status: { state: 'failed' } });
  });

  it('unwraps artifact updates with append and lastChunk', () => {
    expect(streamResultFromV1({ artifactUpdate: { taskId: 't', contextId: 'c', append: true, lastChunk: false, artifact: { artifactId: 'a', parts: [{ text: 'x' }] } } })).toEqual({
      kind: 'artifact-update',
      taskId: 't',
      contextId: 'c',
      append: true,
      lastChunk: false,
      artifact: { artifactId: 'a', parts: [{ kind: 'text', text: 'x' }] },
    });
  });

  it('unwraps task and message stream items and send results', () => {
    const task = { id: 't', contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' as const } };
    const message = { messageId: 'm', role: 'ROLE_AGENT' as const, parts: [{ text: 'hi' }] };
    expect(streamResultFromV1({ task })).toEqual({ kind: 'task', id: 't', contextId: 'c', status: { state: 'submitted' } });
    expect(streamResultFromV1({ message })).toEqual({ kind: 'message', messageId: 'm', role: 'agent', parts: [{ kind: 'text', text: 'hi' }] });
    expect(sendResultFromV1({ task })).toMatchObject({ kind: 'task' });
    expect(sendResultFromV1({ message })).toMatchObject({ kind: 'message' });
  });
});
