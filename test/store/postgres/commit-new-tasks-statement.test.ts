/**
 * The PostgreSQL commit sends a run of new tasks that carry nothing else (no task_events row, no
 * push outbox row, no timing, no update) as a statement of its own, without the update, events,
 * outbox and timing parts (issue 26, pg14). These tests commit through a PostgresCommitter whose
 * pool records each statement's name, so they see which statement ran, and read back what was
 * written: a run that carries anything the lean statement lacks must take the full one, or its
 * events, outbox rows, timing or update would be lost.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresCommitter } from '../../../src/store/postgres/postgres-commit.js';
import { type PreparedCommit, prepareCommit, refersToTaskRow } from '../../../src/store/rows.js';
import type { TaskCommit } from '../../../src/store/store.js';
import type { SqlUsageStore } from '../../../src/store/usage/sql-usage-store.js';
import { usageRecord } from '../../support/memory-usage-store.js';
import { postgresStoreWithPool } from '../../support/postgres-store-with-pool.js';
import { echoCommit, newTask, T0, update } from '../fixtures.js';

const db = postgresStoreWithPool('t_newtasks');
const url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const FULL = 'agentport_commit_tasks';
const LEAN = 'agentport_commit_new_tasks';

/** The names of the named statements the committer sent, in order. */
let sent: string[] = [];
let committer: PostgresCommitter;
let recording: pg.Pool;

beforeAll(async () => {
  recording = new pg.Pool({ connectionString: url, options: `-c search_path=${db.schema}`, max: 2 });
  // Every statement, from pool.query or a checked-out client, goes through its client's query.
  recording.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      // a config object's name, or the statement of the store's own executions (named-query.ts)
      const first = args[0] as { name?: string; statement?: { name: string } } | string;
      const name = typeof first === 'object' ? (first.name ?? first.statement?.name) : undefined;
      if (name) sent.push(name);
      return query(...args);
    };
  });
  committer = new PostgresCommitter(recording);
});

afterAll(async () => {
  await recording?.end();
});

/** Commits `batch` as one batch through the recording committer; the statement names it sent. */
async function commit(batch: TaskCommit[]): Promise<string[]> {
  return commitPrepared(batch.map(prepareCommit));
}

async function commitPrepared(batch: PreparedCommit[]): Promise<string[]> {
  sent = [];
  await committer.commit(batch);
  return sent;
}

const unique = (prefix: string): string => `${prefix}-${randomBytes(5).toString('hex')}`;

/** A blocking echo's one commit (terminal: its events go in the task row) with a task usage record. */
function echoWithUsage(timing: { latencyMs?: number; ttfbMs?: number; bytesOut?: number } = {}): TaskCommit {
  const c = echoCommit(unique('echo'));
  c.originMessageId = unique('msg');
  c.usage = usageRecord({ id: c.task.id, kind: 'task', time: T0, agent: c.agentId, taskId: c.task.id, subject: c.owner, outcome: 'TASK_STATE_COMPLETED', ...timing });
  return c;
}

async function eventRowsOf(taskId: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: string }>('select count(*) as n from task_events where task_id = $1', [taskId]);
  return Number(rows[0]!.n);
}

describe('PostgreSQL commit: a run of new tasks and nothing else', () => {
  it('goes as the new-tasks statement and writes the rows, their final events and usage, and their count', async () => {
    const owner = unique('owner');
    const batch = [echoWithUsage(), echoWithUsage(), echoWithUsage()].map((c) => ({ ...c, owner }));
    expect(await commit(batch)).toEqual([LEAN]);
    for (const c of batch) {
      const stored = await db.store.getTask(c.agentId, c.task.id);
      expect(stored?.task).toEqual(c.task);
      expect(stored?.version).toBe(1);
      const { rows } = await db.pool.query<{ final_events: string | null; origin_message_id: string | null }>('select final_events, origin_message_id from tasks where id = $1', [c.task.id]);
      expect(rows[0]?.final_events).toBe(prepareCommit(c).eventsRow!.json);
      expect(rows[0]?.origin_message_id).toBe(c.originMessageId);
      expect(await eventRowsOf(c.task.id)).toBe(0);
      const record = await (db.store.usage as SqlUsageStore).get(c.task.id);
      expect(record?.outcome).toBe('TASK_STATE_COMPLETED');
      expect(record?.latencyMs).toBeUndefined();
    }
    const page = await db.store.listTasks({ agentId: 'agent-a', owner, pageSize: 10 });
    expect(page.totalSize).toBe(3);
    expect(page.tasks.map((t) => t.task.id).sort()).toEqual(batch.map((c) => c.task.id).sort());
  });

  it('a new task that is not finished has a task_events row: the full statement writes it', async () => {
    const c = newTask({ id: unique('task') });
    expect(await commit([c])).toEqual([FULL]);
    expect(await eventRowsOf(c.task.id)).toBe(1);
    expect((await db.store.readEvents(c.task.id, 0)).map((e) => e.event)).toEqual([c.events[0]!.event]);
  });

  it('a finished new task with push outbox rows: the full statement writes them', async () => {
    const c = echoWithUsage();
    c.outbox = [{ taskId: c.task.id, configId: 'cfg-1', seq: 3, payload: { statusUpdate: { taskId: c.task.id, contextId: c.task.contextId, status: c.task.status } } }];
    expect(await commit([c, echoWithUsage()])).toEqual([FULL]);
    expect(await db.store.listPendingDeliveries(c.task.id)).toHaveLength(1);
  });

  it('outbox rows beside an events row kept in the task row: the full statement writes them', async () => {
    // prepareCommit writes a separate events row whenever a commit has outbox rows; the choice of
    // statement must not rest on that.
    const p = prepareCommit(echoWithUsage());
    expect(refersToTaskRow(p.eventsRow!.json)).toBe(true);
    p.outbox = [{ configId: 'cfg-1', seq: 3, json: '{"statusUpdate":{}}' }];
    expect(await commitPrepared([p])).toEqual([FULL]);
    expect(await db.store.listPendingDeliveries(p.taskId)).toHaveLength(1);
  });

  it('a finished new task whose record carries its timing: the full statement writes the timing', async () => {
    const c = echoWithUsage({ latencyMs: 12.5, ttfbMs: 3, bytesOut: 321 });
    expect(await commit([echoWithUsage(), c])).toEqual([FULL]);
    const record = await (db.store.usage as SqlUsageStore).get(c.task.id);
    expect(record).toMatchObject({ latencyMs: 12.5, ttfbMs: 3, bytesOut: 321 });
  });

  it('new tasks beside an update: the full statement applies the update', async () => {
    const first = newTask({ id: unique('task') });
    await commit([first]);
    const next = update(first, { state: 'TASK_STATE_COMPLETED' });
    const fresh = echoWithUsage();
    expect(await commit([fresh, next])).toEqual([FULL]);
    expect((await db.store.getTask(next.agentId, next.task.id))?.version).toBe(2);
    expect((await db.store.getTask(fresh.agentId, fresh.task.id))?.task).toEqual(fresh.task);
  });

  it('a batch cut into runs: a first run of new tasks only, then an update of one of them; each task counted once', async () => {
    const owner = unique('owner');
    const a = { ...echoWithUsage(), owner };
    const b = { ...echoWithUsage(), owner };
    const later = update(a, { state: 'TASK_STATE_COMPLETED' });
    expect(await commit([a, b, later])).toEqual([LEAN, FULL, 'agentport_add_task_counts']);
    expect((await db.store.getTask(a.agentId, a.task.id))?.version).toBe(2);
    expect((await db.store.getTask(b.agentId, b.task.id))?.version).toBe(1);
    expect((await db.store.listTasks({ agentId: 'agent-a', owner, pageSize: 10 })).totalSize).toBe(2);
  });

  it('a taken message id is still refused, as a lost commit naming the second task', async () => {
    const c = echoWithUsage();
    await commit([c]);
    const again = echoCommit(unique('echo'));
    again.originMessageId = c.originMessageId;
    await expect(commit([again])).rejects.toMatchObject({ name: 'ConcurrentUpdateError', taskId: again.task.id });
    expect(await db.store.getTask(again.agentId, again.task.id)).toBeUndefined();
  });
});
