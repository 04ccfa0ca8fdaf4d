import { describe, expect, it } from 'vitest';
import { applyEvent, isInCommitOrder, structuredCloneTask, viewTask, workingCopyFor } from '../../../src/core/task-state/task-projection.js';
import type { Artifact, Task } from '../../../src/protocol/a2a/types.js';
import { writeJson } from '../../../src/protocol/a2a/written-json.js';

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

  it('puts a first artifact into a task with an empty list or none, and the next ones after it', () => {
    const none = task();
    applyEvent(none, { artifactUpdate: { taskId: 't1', contextId: 'c1', artifact: chunk('one') } });
    expect(none.artifacts).toEqual([chunk('one')]);

    const empty: Task = { ...task(), artifacts: [] };
    const first = chunk('one');
    applyEvent(empty, { artifactUpdate: { taskId: 't1', contextId: 'c1', artifact: first } });
    expect(empty.artifacts).toEqual([chunk('one')]);
    expect(empty.artifacts?.[0]).not.toBe(first);
    expect(empty.artifacts?.[0]?.parts).not.toBe(first.parts);
    applyEvent(empty, { artifactUpdate: { taskId: 't1', contextId: 'c1', artifact: { artifactId: 'a2', parts: [{ text: 'x' }] } } });
    applyEvent(empty, { artifactUpdate: { taskId: 't1', contextId: 'c1', artifact: chunk('two'), append: true } });
    expect(empty.artifacts).toEqual([
      { artifactId: 'a1', parts: [{ text: 'one' }, { text: 'two' }], name: 'out' },
      { artifactId: 'a2', parts: [{ text: 'x' }] },
    ]);
  });

  it('copies one artifact and several, each with parts of its own', () => {
    for (const artifacts of [[chunk('one')], [chunk('one'), { artifactId: 'a2', parts: [{ text: 'x' }] }]]) {
      const original: Task = { ...task(), artifacts };
      const copy = structuredCloneTask(original);
      expect(copy.artifacts).toEqual(artifacts);
      expect(copy.artifacts).not.toBe(artifacts);
      copy.artifacts!.forEach((a, i) => {
        expect(a).not.toBe(artifacts[i]);
        expect(a.parts).not.toBe(artifacts[i]!.parts);
      });
    }
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

  it("gives a copy its fields in the view's order (id, contextId, status, artifacts, history, metadata), any other field after, kept", () => {
    const working = task();
    applyEvent(working, { artifactUpdate: { taskId: 't1', contextId: 'c1', artifact: chunk('one') } });
    // the working copy gathered its first artifact after its history
    expect(Object.keys(working)).toEqual(['id', 'contextId', 'status', 'history', 'artifacts']);
    const withExtras = { metadata: { k: 'v' }, ...working, extension: 1 } as Task;
    const copy = structuredCloneTask(withExtras);
    expect(Object.keys(copy)).toEqual(['id', 'contextId', 'status', 'artifacts', 'history', 'metadata', 'extension']);
    expect(copy).toEqual(withExtras);
  });
});

describe("a caller's view of a task", () => {
  const all = { maxHistory: 100 };
  function committed(): Task {
    const working = task();
    applyEvent(working, { artifactUpdate: { taskId: 't1', contextId: 'c1', artifact: chunk('one') } });
    return structuredCloneTask(working);
  }
  // written out by hand: the committed task's view, every field kept
  const WHOLE =
    '{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING","timestamp":"2026-11-29T10:00:00.000Z"},' +
    '"artifacts":[{"artifactId":"a1","parts":[{"text":"one"}],"name":"out"}],' +
    '"history":[{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}],"contextId":"c1","taskId":"t1"}]}';

  it('is a written committed copy itself when the view keeps all of it, so the text the store wrote is the answer', () => {
    const t = committed();
    expect(writeJson(t)).toBe(WHOLE);
    expect(viewTask(t, all)).toBe(t);
    expect(viewTask(t, { ...all, historyLength: 1 })).toBe(t);
  });

  it('is a new object with the same text for a copy nobody wrote (a working copy changes under a queued view)', () => {
    const working = task();
    applyEvent(working, { artifactUpdate: { taskId: 't1', contextId: 'c1', artifact: chunk('one') } });
    const view = viewTask(working, all);
    expect(view).not.toBe(working);
    expect(JSON.stringify(view)).toBe(WHOLE);
    const unwritten = committed();
    expect(viewTask(unwritten, all)).not.toBe(unwritten);
  });

  it('drops what the caller did not ask for from a written copy, in a new object', () => {
    const t = committed();
    t.history!.push({ messageId: 'm2', role: 'ROLE_AGENT', parts: [{ text: 'yo' }] });
    writeJson(t);
    const cut = viewTask(t, { ...all, historyLength: 1 });
    expect(cut).not.toBe(t);
    expect(cut.history).toEqual([{ messageId: 'm2', role: 'ROLE_AGENT', parts: [{ text: 'yo' }] }]);
    const none = viewTask(t, { ...all, historyLength: 0 });
    expect(Object.keys(none)).toEqual(['id', 'contextId', 'status', 'artifacts']);
    const listed = viewTask(t, { ...all, includeArtifacts: false });
    expect(Object.keys(listed)).toEqual(['id', 'contextId', 'status', 'history']);
  });

  it("writes a written copy's fields in the view's order even when they were not (a row stored before)", () => {
    const stored = JSON.parse(
      '{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING","timestamp":"2026-11-29T10:00:00.000Z"},"history":[{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}],"contextId":"c1","taskId":"t1"}],"artifacts":[{"artifactId":"a1","parts":[{"text":"one"}],"name":"out"}],"extra":true}',
    ) as Task;
    writeJson(stored);
    const view = viewTask(stored, all);
    expect(view).not.toBe(stored);
    expect(JSON.stringify(view)).toBe(WHOLE);
    const empty = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' }, artifacts: [], history: [] } as Task;
    writeJson(empty);
    expect(JSON.stringify(viewTask(empty, all))).toBe('{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}');
  });
});

// The task log commits a working copy as it is when a copy would be written as the same text
// (TaskLog.flush), and copies one a commit or a task event holds before changing it.
describe('a working copy taken by its commit', () => {
  const status = { state: 'TASK_STATE_WORKING' as const, timestamp: '2026-11-29T10:00:00.000Z' };
  const shapes: Task[] = [
    task(),
    { id: 't1', contextId: 'c1', status, artifacts: [chunk('one')], history: task().history! },
    { id: 't1', contextId: 'c1', status, history: task().history!, artifacts: [chunk('one')] },
    { id: 't1', contextId: 'c1', status, metadata: { k: 1 } },
    { id: 't1', contextId: 'c1', status, metadata: undefined },
    { id: 't1', contextId: 'c1', status, artifacts: undefined, history: task().history! },
    { id: 't1', contextId: 'c1', status, kind: 'task', history: task().history! } as Task,
    { id: 't1', contextId: 'c1', status, history: task().history!, kind: 'task' } as Task,
    { id: 't1', status, contextId: 'c1' },
    { contextId: 'c1', id: 't1', status },
  ];

  it('is in commit order exactly when its copy is written as the same text', () => {
    const inOrder = shapes.map((t) => isInCommitOrder(t));
    expect(inOrder).toEqual([true, true, false, true, false, false, false, true, false, false]);
    for (const t of shapes) if (isInCommitOrder(t)) expect(JSON.stringify(t)).toBe(JSON.stringify(structuredCloneTask(t)));
  });

  it('is copied before an event changes it, and a first artifact takes its place before the history', () => {
    const committed = task();
    const before = structuredClone(committed);
    const event = { artifactUpdate: { taskId: 't1', contextId: 'c1', artifact: chunk('one') } };
    const working = applyEvent(workingCopyFor(committed, event, true), event);
    expect(committed).toEqual(before);
    expect(Object.keys(working)).toEqual(['id', 'contextId', 'status', 'artifacts', 'history']);
    expect(isInCommitOrder(working)).toBe(true);

    const own = task();
    const ownHistory = own.history;
    const reordered = applyEvent(workingCopyFor(own, event, false), event);
    expect(Object.keys(reordered)).toEqual(['id', 'contextId', 'status', 'artifacts', 'history']);
    expect(reordered.history).toBe(ownHistory);
    expect(JSON.stringify(reordered)).toBe(JSON.stringify(structuredCloneTask(reordered)));
  });
});
