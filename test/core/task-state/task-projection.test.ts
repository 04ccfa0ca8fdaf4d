import { describe, expect, it } from 'vitest';
import { applyEvent, structuredCloneTask } from '../../../src/core/task-state/task-projection.js';
import type { Artifact, Task } from '../../../src/protocol/a2a/types.js';

// A task copy and the events applied to a working copy share messages and artifacts (they are
// replaced, never changed in place): whatever is applied afterwards leaves an earlier copy, and
// the events themselves, as they were.
function task(): Task {
  return {
    id: 't1',
    contextId: 'c1',
    status: { state: 'TASK_STATE_WORKING', timestamp: '2026-11-29T10:00:00.000Z' },
    history: [{ messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }], contextId: 'c1', taskId: 't1' }],
  };
}
const chunk = (text: string): Artifact => ({ artifactId: 'a1', parts: [{ text }], name: 'out' });

describe('task projection', () => {
  it('leaves an earlier copy and the applied events unchanged when later events append, replace and add', () => {
    const working = task();
    const first = chunk('one');
    applyEvent(working, { artifactUpdate: { taskId: 't1', contextId: 'c1', artifact: first } });
    const committed = structuredCloneTask(working);
    const committedBefore = structuredClone(committed);
    const firstBefore = structuredClone(first);

    const appended = chunk('two');
    applyEvent(working, { artifactUpdate: { taskId: 't1', contextId: 'c1', artifact: appended, append: true } });
    expect(working.artifacts).toEqual([{ artifactId: 'a1', parts: [{ text: 'one' }, { text: 'two' }], name: 'out' }]);
    applyEvent(working, { artifactUpdate: { taskId: 't1', contextId: 'c1', artifact: { artifactId: 'a2', parts: [{ text: 'x' }] } } });
    applyEvent(working, { statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-11-29T10:00:01.000Z' } } });
    applyEvent(working, { message: { messageId: 'm2', role: 'ROLE_AGENT', parts: [{ text: 'done' }] } });

    expect(committed).toEqual(committedBefore);
    expect(first).toEqual(firstBefore);
    expect(appended).toEqual(chunk('two'));
    expect(working.artifacts).toHaveLength(2);
    expect(working.history).toHaveLength(2);
  });

  it('gives the working copy its own task when a task event is applied', () => {
    const snapshot = task();
    const before = structuredClone(snapshot);
    const working = applyEvent({} as Task, { task: snapshot });
    expect(working).not.toBe(snapshot);
    applyEvent(working, { artifactUpdate: { taskId: 't1', contextId: 'c1', artifact: chunk('one') } });
    applyEvent(working, { statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-11-29T10:00:01.000Z' } } });
    expect(snapshot).toEqual(before);
  });
});
