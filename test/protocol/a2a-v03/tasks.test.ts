import { describe, expect, it } from 'vitest';
import { TASK_STATES, type Task } from '../../../src/protocol/a2a/types.js';
import { stateFromV1, stateToV1, taskFromV1 } from '../../../src/protocol/a2a-v03/tasks.js';
import { V03_TASK_STATES } from '../../../src/protocol/a2a-v03/types.js';

describe('v0.3 task states', () => {
  it('maps every v1.0 state to its kebab-case v0.3 name and back', () => {
    const names = TASK_STATES.map(stateFromV1);
    expect(names.sort()).toEqual(V03_TASK_STATES.filter((s) => s !== 'unknown').sort());
    for (const s of TASK_STATES) expect(stateToV1(stateFromV1(s), 'state')).toBe(s);
    expect(stateFromV1('TASK_STATE_INPUT_REQUIRED')).toBe('input-required');
    expect(stateFromV1('TASK_STATE_AUTH_REQUIRED')).toBe('auth-required');
  });

  it("refuses 'unknown' on input: it is UNSPECIFIED in v1.0", () => {
    expect(() => stateToV1('unknown', 'state')).toThrow(/state/);
  });
});

describe('v0.3 tasks', () => {
  it('adds kind:"task" and translates status, history and artifacts', () => {
    const t: Task = {
      id: 't1',
      contextId: 'c1',
      status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-01-01T00:00:00.000Z', message: { messageId: 'a', role: 'ROLE_AGENT', parts: [{ text: 'done' }] } },
      artifacts: [{ artifactId: 'x', name: 'echo', parts: [{ raw: 'aGk=', mediaType: 'text/plain' }] }],
      history: [{ messageId: 'u', role: 'ROLE_USER', parts: [{ text: 'hi' }] }],
      metadata: { m: true },
    };
    expect(taskFromV1(t)).toEqual({
      kind: 'task',
      id: 't1',
      contextId: 'c1',
      status: { state: 'completed', timestamp: '2026-01-01T00:00:00.000Z', message: { kind: 'message', messageId: 'a', role: 'agent', parts: [{ kind: 'text', text: 'done' }] } },
      artifacts: [{ artifactId: 'x', name: 'echo', parts: [{ kind: 'file', file: { bytes: 'aGk=', mimeType: 'text/plain' } }] }],
      history: [{ kind: 'message', messageId: 'u', role: 'user', parts: [{ kind: 'text', text: 'hi' }] }],
      metadata: { m: true },
    });
  });
});
