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
import type { Store } from '../../src/store/store.js';
import { migrateTo } from '../support/migrate-to.js';
import { roundTripOnPostgres, roundTripOnSqlite } from '../support/migration-round-trip.js';
import { echoCommit } from './fixtures.js';

const BEFORE = '0024_task_running_index';

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
