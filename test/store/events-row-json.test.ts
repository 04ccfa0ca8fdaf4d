/**
 * The events row written as text (events-row-format.ts `compactEventJson`, rows.ts): the same
 * text as `JSON.stringify` of the compact copies `compactEvent` makes, for every kind of event,
 * with and without the task row it may refer to, whatever fields an event carries.
 */
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/protocol/a2a/types.js';
import { compactEvent, compactEventJson, numberJson } from '../../src/store/events-row-format.js';
import { prepareCommit, toEventRecords } from '../../src/store/rows.js';
import type { TaskCommit, TaskEventPayload } from '../../src/store/store.js';

const inHistory = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'héllo "quoted" \u2028 \ud800' }], contextId: 'c-1', taskId: 't-1' };
const notInHistory = { messageId: 'm-2', role: 'ROLE_AGENT', parts: [{ text: 'x' }], taskId: 't-1', contextId: 'c-1', metadata: { 'k"ey': [1, null, 'v'] } };
const otherIds = { messageId: 'm-3', role: 'ROLE_AGENT', parts: [{ text: 'y' }], taskId: 't-9', contextId: 'c-9' };
const noIds = { messageId: 'm-4', role: 'ROLE_AGENT', parts: [{ text: 'z' }] };
const onlyContext = { contextId: 'c-1', messageId: 'm-5', role: 'ROLE_AGENT', parts: [] };
const artifact = { artifactId: 'a-1', parts: [{ text: 'hello' }], name: 'echo' };
const status = { state: 'TASK_STATE_COMPLETED', timestamp: '2026-11-29T02:00:00.000Z' };

const task = {
  id: 't-1',
  contextId: 'c-1',
  status,
  artifacts: [artifact, { artifactId: 'a-2', parts: [{ data: { n: 1 } }] }],
  history: [inHistory],
  metadata: { a: 1 },
} as unknown as Task;

/** A parsed document may have an own `__proto__` key: it stays a key. */
const parsedProto = JSON.parse('{"messageId":"m-6","role":"ROLE_AGENT","parts":[],"__proto__":{"x":1},"taskId":"t-1"}');

const events = [
  { task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_SUBMITTED', timestamp: '2026-11-29T01:59:59.999Z' }, history: [inHistory] } },
  { task: { contextId: 'c-1', id: 't-1', status, history: [inHistory, notInHistory, otherIds], artifacts: [artifact, { ...artifact }, { ...artifact, parts: [{ text: 'more' }] }], metadata: { 'ü\n': true } } },
  { task: { id: 't-9', contextId: 'c-9', status: { state: 'TASK_STATE_WORKING', message: notInHistory }, kind: undefined } },
  { task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING', message: inHistory, timestamp: 'now' }, artifacts: undefined, history: null } },
  { task: { id: 't-1', contextId: 'c-1', status, history: [inHistory, inHistory] } },
  { task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_SUBMITTED' }, history: [] } },
  { task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING', message: notInHistory }, history: [inHistory] } },
  { task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_SUBMITTED' }, history: [inHistory, noIds] } },
  { task: { id: 't-1', contextId: 'c-9', status: { state: 'TASK_STATE_SUBMITTED' }, history: [inHistory] } },
  { task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_SUBMITTED' }, history: [inHistory], metadata: { m: 1 } } },
  // statuses the row writes without JSON.stringify, and every one it leaves to JSON.stringify
  { task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_SUBMITTED', timestamp: 'a "quoted" \\ \u0001 \u007f é' }, history: [inHistory] } },
  { task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_SUBMITTED', timestamp: 'lone \ud800 and pair \ud83d\ude00' }, history: [inHistory] } },
  { task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_\n', timestamp: 't' }, history: [inHistory] } },
  { task: { id: 't-1', contextId: 'c-1', status: { timestamp: '2026-11-29T01:59:59.999Z', state: 'TASK_STATE_SUBMITTED' }, history: [inHistory] } },
  { task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_SUBMITTED', timestamp: undefined }, history: [inHistory] } },
  { task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_SUBMITTED', timestamp: 7 }, history: [inHistory] } },
  { task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_SUBMITTED', timestamp: 't', extra: 1 }, history: [inHistory] } },
  { task: { id: 't-1', contextId: 'c-1', status: Object.assign(Object.create({ timestamp: 'inherited' }), { state: 'TASK_STATE_SUBMITTED' }), history: [inHistory] } },
  { task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_SUBMITTED', toJSON: () => 'own' }, history: [inHistory] } },
  { task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_SUBMITTED', [Symbol('s')]: 1 }, history: [inHistory] } },
  { task: { id: 't-1', contextId: 'c-1', status: { state: '', timestamp: '' }, history: [inHistory] } },
  { statusUpdate: { taskId: 't-1', contextId: 'c-1', status } },
  { statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { ...status } } },
  { statusUpdate: { contextId: 'c-1', taskId: 't-1', status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-11-29T02:00:00.001Z' } } },
  { statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_INPUT_REQUIRED', message: notInHistory }, metadata: { f: () => 1, u: undefined, d: 1.5e21 } } },
  { statusUpdate: { taskId: 't-2', contextId: 'c-2', status: { message: inHistory, state: 'TASK_STATE_WORKING' }, final: true } },
  { statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING', timestamp: '2026-11-29T02:00:00.000Z' } } },
  { artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact } },
  // a reference-only shape whose last field is inherited: JSON.stringify writes no such field
  { statusUpdate: Object.assign(Object.create({ status }), { taskId: 't-1', contextId: 'c-1' }) },
  { artifactUpdate: Object.assign(Object.create({ artifact }), { taskId: 't-1', contextId: 'c-1' }) },
  { task: Object.assign(Object.create({ history: [inHistory] }), { id: 't-1', contextId: 'c-1', status }) },
  { artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact: task.artifacts![1] } },
  { artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact: { artifactId: 'a-1', parts: [{ text: 'other' }], name: 'echo' } } },
  { artifactUpdate: { taskId: 't-1', contextId: 'c-9', artifact } },
  { artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact: { ...artifact, parts: [...artifact.parts] } } },
  { artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact: { ...artifact, parts: [{ text: 'hello' }] }, append: true, lastChunk: false } },
  { artifactUpdate: { artifact: { artifactId: 'a-3', parts: [] }, taskId: 't-3', contextId: 'c-1', metadata: null } },
  { message: inHistory },
  { message: notInHistory },
  { message: otherIds },
  { message: noIds },
  { message: onlyContext },
  { message: parsedProto },
  { userMessage: inHistory },
  { userMessage: { ...notInHistory, extensions: ['u'], referenceTaskIds: ['t-1'] } },
  { somethingElse: { taskId: 't-1' } },
] as unknown as TaskEventPayload[];

describe('an event of the compact events row, as text', () => {
  for (const [i, event] of events.entries()) {
    for (const ref of [undefined, task]) {
      it(`is JSON.stringify's text of its compact copy: event ${i}, ${ref ? 'referring to the task row' : 'on its own'}`, () => {
        expect(compactEventJson(event, 't-1', 'c-1', ref)).toBe(JSON.stringify(compactEvent(event, 't-1', 'c-1', ref)));
      });
    }
  }

  it('writes numbers as JSON.stringify does', () => {
    for (const n of [0, -0, 1, -1, 3, 1_795_993_247_128, 1.5, 1e21, 1.5e-7, Number.MAX_SAFE_INTEGER, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(numberJson(n)).toBe(JSON.stringify(n));
    }
  });
});

describe("a commit's events row", () => {
  function commitOf(t: Task, payloads: TaskEventPayload[]): TaskCommit {
    return {
      agentId: 'echo',
      owner: 'anonymous',
      task: t,
      expectedVersion: 0,
      seq: payloads.length,
      events: payloads.map((event, i) => ({ taskId: 't-1', seq: i + 1, event, createdAt: 1_795_993_247_128 + i })),
      outbox: [],
      createdAt: 1_795_993_247_128,
    };
  }

  /** The row as it was serialised before: the pairs built, then one JSON.stringify. */
  function stringified(c: TaskCommit, ref: Task | undefined): string {
    const pairs = c.events.map((e) => [e.createdAt, compactEvent(e.event, c.task.id, c.task.contextId, ref)]);
    return JSON.stringify(ref ? { t: c.seq, e: pairs } : { c: c.task.contextId, e: pairs });
  }

  it('is the text JSON.stringify made of the built pairs, for a terminal commit (referring to its task row) and a running one', () => {
    const running = { ...task, status: { state: 'TASK_STATE_WORKING' } } as Task;
    for (const n of [1, 3, events.length]) {
      const terminal = commitOf(task, events.slice(0, n));
      expect(prepareCommit(terminal).eventsRow!.json).toBe(stringified(terminal, task));
      const live = commitOf(running, events.slice(0, n));
      expect(prepareCommit(live).eventsRow!.json).toBe(stringified(live, undefined));
    }
  });

  it("refers to the task row's status or artifact only when it has exactly their fields and values: one more, one fewer or another value is written out, and reads back as it was", () => {
    const updates = [
      { statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { ...status, extra: 1 } } },
      { statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { ...status, timestamp: 'other' } } },
      { artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact: { ...artifact, name: 'other' } } },
      { statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: status.state } } },
      { artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact: { ...artifact, extra: 1 } } },
      { artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact: { artifactId: 'a-1', parts: artifact.parts } } },
    ] as unknown as TaskEventPayload[];
    for (const event of updates) {
      const c = commitOf(task, [event]);
      const json = prepareCommit(c).eventsRow!.json;
      expect(json).not.toMatch(/"(status|artifact)":0/);
      const [read] = toEventRecords({ task_id: 't-1', seq: 1, first_seq: 1, events: json, created_at: 0 } as never, { seq: c.seq, task: JSON.stringify(task) });
      expect(read!.event).toEqual(event);
    }
  });
});
