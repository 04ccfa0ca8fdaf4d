import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/protocol/a2a/types.js';
import { prepareCommit, toEventRecords } from '../../src/store/rows.js';
import type { TaskCommit, TaskEventPayload } from '../../src/store/store.js';
import type { UsageRecord } from '../../src/store/usage-record.js';
import { toUsageRow, USAGE_RECORD_COLUMNS, usageRowValues } from '../../src/store/usage/usage-rows.js';

const task: Task = {
  id: 't-1',
  contextId: 'c-1',
  status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-11-29T02:00:00.000Z' },
  history: [{ messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'héllo "quoted" \u2028' }], contextId: 'c-1', taskId: 't-1' }],
  artifacts: [{ artifactId: 'a-1', parts: [{ text: 'hello' }] }],
};
const payloads: TaskEventPayload[] = [
  { task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_SUBMITTED' }, history: task.history } },
  { artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact: task.artifacts![0]! } },
  { statusUpdate: { taskId: 't-1', contextId: 'c-1', status: task.status } },
];

/** The same task still running: its commit's events row is the compact form (a terminal one's refers to its task row). */
const running: Task = { ...task, status: { state: 'TASK_STATE_WORKING', timestamp: '2026-11-29T02:00:00.000Z' } };

function commit(outbox: TaskCommit['outbox'], t: Task = task): TaskCommit {
  return {
    agentId: 'echo',
    owner: 'anonymous',
    task: t,
    expectedVersion: 0,
    seq: 3,
    events: payloads.map((event, i) => ({ taskId: 't-1', seq: i + 1, event, createdAt: 1_795_000_000_000 + i })),
    outbox,
    createdAt: 1_795_000_000_000,
  };
}

describe('a commit prepared for the store', () => {
  it('writes the events row with the task id left out and the context id once, and reads it back to the same records, fields in the same order', () => {
    const p = prepareCommit(commit([], running));
    expect(p.eventsRow).toMatchObject({ firstSeq: 1, lastSeq: 3, createdAt: 1_795_000_000_002 });
    // written out by hand: every id field of the row's task holds 0, in its place
    expect(JSON.parse(p.eventsRow!.json)).toEqual({
      c: 'c-1',
      e: [
        [
          1_795_000_000_000,
          { task: { id: 0, contextId: 0, status: { state: 'TASK_STATE_SUBMITTED' }, history: [{ messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'héllo "quoted" \u2028' }], contextId: 0, taskId: 0 }] } },
        ],
        [1_795_000_000_001, { artifactUpdate: { taskId: 0, contextId: 0, artifact: { artifactId: 'a-1', parts: [{ text: 'hello' }] } } }],
        [1_795_000_000_002, { statusUpdate: { taskId: 0, contextId: 0, status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-11-29T02:00:00.000Z' } } }],
      ],
    });
    expect(p.eventsRow!.json.split('t-1').length - 1).toBe(0);
    expect(p.eventsRow!.json.split('c-1').length - 1).toBe(1);
    const back = toEventRecords({ task_id: 't-1', seq: 3, first_seq: 1, events: p.eventsRow!.json, created_at: 1_795_000_000_002 });
    expect(back).toEqual(commit([]).events);
    expect(back.map((e) => JSON.stringify(e.event))).toEqual(payloads.map((e) => JSON.stringify(e)));
  });

  it('leaves the committed events untouched while writing the compact row', () => {
    const before = JSON.stringify(payloads);
    prepareCommit(commit([]));
    expect(JSON.stringify(payloads)).toBe(before);
  });

  it("keeps ids that are not the row task's as written, and a message without ids without them", () => {
    const message = { messageId: 'm-2', role: 'ROLE_AGENT' as const, parts: [{ text: 'need more' }], taskId: 't-1', contextId: 'c-other' };
    const events: TaskEventPayload[] = [
      { statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_INPUT_REQUIRED', message } } },
      { userMessage: { messageId: 'm-3', role: 'ROLE_USER', parts: [{ text: 'more' }] } },
      { userMessage: { messageId: 'm-4', role: 'ROLE_USER', parts: [{ text: 'more' }], contextId: 'c-1', taskId: 't-1', referenceTaskIds: ['t-1'] } },
      { message: { messageId: 'm-5', role: 'ROLE_AGENT', parts: [{ text: 'fyi' }], taskId: 't-1' } },
    ];
    const c: TaskCommit = { ...commit([], running), expectedVersion: 1, seq: 5, events: events.map((event, i) => ({ taskId: 't-1', seq: i + 2, event, createdAt: 1_795_000_000_010 + i })) };
    const json = prepareCommit(c).eventsRow!.json;
    expect(JSON.parse(json).e.map((p: [number, unknown]) => p[1])).toEqual([
      { statusUpdate: { taskId: 0, contextId: 0, status: { state: 'TASK_STATE_INPUT_REQUIRED', message: { messageId: 'm-2', role: 'ROLE_AGENT', parts: [{ text: 'need more' }], taskId: 0, contextId: 'c-other' } } } },
      { userMessage: { messageId: 'm-3', role: 'ROLE_USER', parts: [{ text: 'more' }] } },
      { userMessage: { messageId: 'm-4', role: 'ROLE_USER', parts: [{ text: 'more' }], contextId: 0, taskId: 0, referenceTaskIds: ['t-1'] } },
      { message: { messageId: 'm-5', role: 'ROLE_AGENT', parts: [{ text: 'fyi' }], taskId: 0 } },
    ]);
    const back = toEventRecords({ task_id: 't-1', seq: 5, first_seq: 2, events: json, created_at: 1_795_000_000_013 });
    expect(back).toEqual(c.events);
    expect(back.map((e) => JSON.stringify(e.event))).toEqual(events.map((e) => JSON.stringify(e)));
  });

  it('reads a row in the full form, as stored before compact rows, to the same records', () => {
    const old = JSON.stringify(payloads.map((e, i) => [1_795_000_000_000 + i, e]));
    expect(toEventRecords({ task_id: 't-1', seq: 3, first_seq: 1, events: old, created_at: 1_795_000_000_002 })).toEqual(commit([]).events);
  });

  it('writes a commit with push deliveries in the full form, built from the payload strings, and reads it back to the same records', () => {
    const pushed = prepareCommit(commit([{ taskId: 't-1', configId: 'cfg', seq: 3, payload: payloads[2] as never }]));
    expect(pushed.eventsRow!.json).toBe(JSON.stringify(payloads.map((e, i) => [1_795_000_000_000 + i, e])));
    expect(pushed.outbox).toEqual([{ configId: 'cfg', seq: 3, json: JSON.stringify(payloads[2]) }]);
    expect(toEventRecords({ task_id: 't-1', seq: 3, first_seq: 1, events: pushed.eventsRow!.json, created_at: 1_795_000_000_002 })).toEqual(commit([]).events);
  });

  it("writes a terminal commit's row with what its task row holds as references, and reads it back byte for byte from that task row", () => {
    const p = prepareCommit(commit([]));
    // written out by hand: history[0], artifacts[0] and the task's status are the task row's
    expect(JSON.parse(p.eventsRow!.json)).toEqual({
      t: 3,
      e: [
        [1_795_000_000_000, { task: { id: 0, contextId: 0, status: { state: 'TASK_STATE_SUBMITTED' }, history: [0] } }],
        [1_795_000_000_001, { artifactUpdate: { taskId: 0, contextId: 0, artifact: 0 } }],
        [1_795_000_000_002, { statusUpdate: { taskId: 0, contextId: 0, status: 0 } }],
      ],
    });
    expect(p.eventsRow!.json).not.toContain('c-1');
    expect(p.eventsRow!.json).not.toContain('hello');
    const back = toEventRecords({ task_id: 't-1', seq: 3, first_seq: 1, events: p.eventsRow!.json, created_at: 1_795_000_000_002 }, { seq: 3, task: p.taskJson });
    expect(back).toEqual(commit([]).events);
    expect(back.map((e) => JSON.stringify(e.event))).toEqual(payloads.map((e) => JSON.stringify(e)));
  });

  it('writes whole, in a terminal commit, what its task row holds otherwise: an artifact appended to, a status or message not its own', () => {
    const chunk = { artifactId: 'a-1', parts: [{ text: ' world' }] };
    const copy = { messageId: 'm-1', role: 'ROLE_USER' as const, parts: [{ text: 'héllo "quoted" \u2028' }], contextId: 'c-1', taskId: 't-1' };
    const events: TaskEventPayload[] = [
      { statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } } },
      { artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact: chunk, append: true } },
      // equal to the task's history[0], but not the object it holds
      { message: copy },
      { statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { ...task.status } } },
    ];
    const done: Task = { ...task, artifacts: [{ artifactId: 'a-1', parts: [{ text: 'hello' }, { text: ' world' }] }] };
    const c: TaskCommit = { ...commit([], done), expectedVersion: 1, seq: 7, events: events.map((event, i) => ({ taskId: 't-1', seq: i + 4, event, createdAt: 1_795_000_000_010 + i })) };
    const p = prepareCommit(c);
    expect(JSON.parse(p.eventsRow!.json)).toEqual({
      t: 7,
      e: [
        [1_795_000_000_010, { statusUpdate: { taskId: 0, contextId: 0, status: { state: 'TASK_STATE_WORKING' } } }],
        [1_795_000_000_011, { artifactUpdate: { taskId: 0, contextId: 0, artifact: { artifactId: 'a-1', parts: [{ text: ' world' }] }, append: true } }],
        [1_795_000_000_012, { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'héllo "quoted" \u2028' }], contextId: 0, taskId: 0 } }],
        // a copy with the same fields and values is the same text: a reference
        [1_795_000_000_013, { statusUpdate: { taskId: 0, contextId: 0, status: 0 } }],
      ],
    });
    const back = toEventRecords({ task_id: 't-1', seq: 7, first_seq: 4, events: p.eventsRow!.json, created_at: 1_795_000_000_013 }, { seq: '7', task: p.taskJson });
    expect(back).toEqual(c.events);
    expect(back.map((e) => JSON.stringify(e.event))).toEqual(events.map((e) => JSON.stringify(e)));
  });

  it('refuses to read a row that refers to its task row without that row, or with the row at another seq', () => {
    const p = prepareCommit(commit([]));
    const row = { task_id: 't-1', seq: 3, first_seq: 1, events: p.eventsRow!.json, created_at: 1_795_000_000_002 };
    expect(() => toEventRecords(row)).toThrow(/task t-1: events row 1-3 refers to the task row at seq 3, found none/);
    expect(() => toEventRecords(row, { seq: 4, task: p.taskJson })).toThrow(/refers to the task row at seq 3, found seq 4/);
  });

  it('refuses an outbox entry of another task, so the batch writes nothing', () => {
    expect(() => prepareCommit(commit([{ taskId: 't-2', configId: 'cfg', seq: 3, payload: payloads[2] as never }]))).toThrow(/outbox entry for task t-2/);
  });
});

describe('a usage record bound positionally', () => {
  const full: UsageRecord = {
    id: 'u-1',
    kind: 'task',
    time: 10,
    startedAt: 5,
    final: true,
    replica: 'r',
    face: 'a2a-jsonrpc/1.0',
    operation: 'SendMessage',
    agent: 'echo',
    skill: 'echo',
    tool: 'tool',
    taskId: 'u-1',
    contextId: 'c',
    subject: 's',
    clientId: 'cl',
    keyId: 'k',
    usecase: 'uc',
    outcome: 'TASK_STATE_COMPLETED',
    error: false,
    ttfbMs: 1.5,
    latencyMs: 2.5,
    durationMs: 3,
    bytesIn: 7,
    bytesOut: 8,
    model: 'm',
    promptTokens: 11,
    completionTokens: 12,
    cachedTokens: 4,
    cost: 0.25,
  };
  const sparse: UsageRecord = { id: 'u-2', kind: 'call', time: 1, startedAt: 1, final: true, replica: 'r', face: 'f', operation: 'o', outcome: 'OK', error: true, promptTokens: 0, completionTokens: 0, cost: 0 };

  it('binds every column of the row in USAGE_RECORD_COLUMNS order, a full record and a sparse one', () => {
    for (const r of [full, sparse]) {
      const row = toUsageRow(r);
      expect(usageRowValues(r)).toEqual(USAGE_RECORD_COLUMNS.map((c) => row[c]));
    }
  });
});
