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

function commit(outbox: TaskCommit['outbox']): TaskCommit {
  return {
    agentId: 'echo',
    owner: 'anonymous',
    task,
    expectedVersion: 0,
    seq: 3,
    events: payloads.map((event, i) => ({ taskId: 't-1', seq: i + 1, event, createdAt: 1_795_000_000_000 + i })),
    outbox,
    createdAt: 1_795_000_000_000,
  };
}

describe('a commit prepared for the store', () => {
  it('writes the events row as [[createdAt, event], …] that reads back to the same records', () => {
    const p = prepareCommit(commit([]));
    expect(p.eventsRow).toMatchObject({ firstSeq: 1, lastSeq: 3, createdAt: 1_795_000_000_002 });
    expect(JSON.parse(p.eventsRow!.json)).toEqual(payloads.map((e, i) => [1_795_000_000_000 + i, e]));
    const back = toEventRecords({ task_id: 't-1', seq: 3, first_seq: 1, events: p.eventsRow!.json, created_at: 1_795_000_000_002 });
    expect(back).toEqual(commit([]).events);
  });

  it('writes the same events row text whether or not push deliveries ride along, and each payload as its event', () => {
    const plain = prepareCommit(commit([]));
    const pushed = prepareCommit(commit([{ taskId: 't-1', configId: 'cfg', seq: 3, payload: payloads[2] as never }]));
    expect(pushed.eventsRow!.json).toBe(plain.eventsRow!.json);
    expect(pushed.outbox).toEqual([{ configId: 'cfg', seq: 3, json: JSON.stringify(payloads[2]) }]);
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
