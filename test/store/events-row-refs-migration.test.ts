/**
 * Migration 0025 (a terminal commit's events row refers to its task row, ADR 0050): a store at 0025
 * writes such rows and reads them back byte for byte; down writes them back in the compact form a
 * build before 0025 reads, with the same events; up again reads the old rows unchanged.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, type Migrator, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import type { Task } from '../../src/protocol/a2a/types.js';
import type { Store, TaskCommit } from '../../src/store/store.js';
import { migrateTo } from '../support/migrate-to.js';
import { roundTripOnPostgres, roundTripOnSqlite } from '../support/migration-round-trip.js';
import { T0 } from './fixtures.js';

const BEFORE = '0024_task_running_index';

/** A blocking echo's one commit: submitted, its artifact, completed; the events share the task's values as the core's do. */
function echoCommit(id: string): TaskCommit {
  const message = { messageId: `m-${id}`, role: 'ROLE_USER' as const, parts: [{ text: 'hello' }], contextId: `c-${id}`, taskId: id };
  const artifact = { artifactId: 'artifact-1', parts: [{ text: 'hello' }], name: 'echo' };
  const done = { state: 'TASK_STATE_COMPLETED' as const, timestamp: '2026-01-01T00:00:01.000Z' };
  const task: Task = { id, contextId: `c-${id}`, status: done, artifacts: [artifact], history: [message] };
  const events = [
    { task: { id, contextId: `c-${id}`, status: { state: 'TASK_STATE_SUBMITTED' as const, timestamp: '2026-01-01T00:00:00.000Z' }, history: [message] } },
    { artifactUpdate: { taskId: id, contextId: `c-${id}`, artifact } },
    { statusUpdate: { taskId: id, contextId: `c-${id}`, status: done } },
  ];
  return { agentId: 'agent-a', owner: 'alice', task, expectedVersion: 0, seq: 3, events: events.map((event, i) => ({ taskId: id, seq: i + 1, event, createdAt: T0 + i })), outbox: [], createdAt: T0 };
}

/** The task's events rows; at the latest migration (0027, ADR 0057) a terminal commit's may be its task row's final_events. */
async function eventsText(db: Kysely<unknown>, taskId: string, latest = false): Promise<string> {
  const { rows } = await sql<{ events: string }>`select events from task_events where task_id = ${taskId}`.execute(db);
  const { rows: held } = latest ? await sql<{ events: string }>`select final_events as events from tasks where id = ${taskId} and final_events is not null`.execute(db) : { rows: [] };
  return [...rows, ...held].map((r) => r.events).join('\n');
}

/** Commits the echo at 0025, checks the row and the read, goes down to 0024 and checks again. */
async function roundTrip(open: () => Promise<Store>, db: Kysely<unknown>, migrator: Migrator, schema?: string): Promise<void> {
  const c = echoCommit(`t-${randomBytes(4).toString('hex')}`);
  const sent = c.events.map((e) => JSON.stringify(e.event));
  let store = await open();
  await store.migrate();
  await store.commit([c]);
  expect((await store.readEvents(c.task.id, 0)).map((e) => JSON.stringify(e.event))).toEqual(sent);
  await store.close();
  const refs = await eventsText(db, c.task.id, true);
  expect(refs.startsWith('{"t":3,')).toBe(true);
  expect(refs).not.toContain(c.task.contextId);

  expect((await migrateTo(migrator, BEFORE, schema)).error).toBeUndefined();
  const compact = await eventsText(db, c.task.id);
  expect(compact.startsWith(`{"c":"${c.task.contextId}",`)).toBe(true);
  expect(compact).not.toContain(`"${c.task.id}"`);

  // up again: the compact row reads as before, and the store's own read of it is the same text
  store = await open();
  await store.migrate();
  expect(await store.readEvents(c.task.id, 0)).toEqual(c.events);
  expect((await store.readEvents(c.task.id, 0)).map((e) => JSON.stringify(e.event))).toEqual(sent);
  await store.close();
}

describe('migration 0025 (a terminal commit refers to its task row)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentport-0025-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('SQLite: writes and reads the referring row, and down writes it back in the compact form', async () => {
    await roundTripOnSqlite(dir, roundTrip);
  });

  it('PostgreSQL: the same', async () => {
    await roundTripOnPostgres('0025', roundTrip);
  });
});
