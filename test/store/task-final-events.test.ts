/**
 * Migration 0027 (ADR 0057): a terminal commit's events live in its task row's final_events, not
 * in a task_events row, on both dialects. The log reads back the same, whole or from any seq, with any
 * limit; the read of the task row is one primary-key search; down writes each value back as the
 * task_events row it stands for (the row a build before 0027 writes), on both dialects.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { Kysely, type Migrator, SqliteDialect, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/index.js';
import { prepareCommit } from '../../src/store/rows.js';
import type { Database } from '../../src/store/schema.js';
import { compileStatements } from '../../src/store/sqlite/sqlite-statements.js';
import type { Store } from '../../src/store/store.js';
import { migrateTo } from '../support/migrate-to.js';
import { roundTripOnPostgres, roundTripOnSqlite } from '../support/migration-round-trip.js';
import { echoCommit, newTask, T0, update } from './fixtures.js';

const BEFORE = '0026_credentials_generation';

interface EventsRow {
  task_id: string;
  seq: number;
  first_seq: number;
  events: string;
  created_at: number;
}

async function eventsRows(db: Kysely<unknown>, taskId: string): Promise<EventsRow[]> {
  const { rows } = await sql<EventsRow>`select task_id, seq, first_seq, events, created_at from task_events where task_id = ${taskId} order by seq`.execute(db);
  return rows.map((r) => ({ ...r, seq: Number(r.seq), first_seq: Number(r.first_seq), created_at: Number(r.created_at) }));
}

/** The store and a Kysely handle on its database, each dialect: `steps` run, then both close. */
type OnStore = (steps: (store: Store, db: Kysely<unknown>) => Promise<void>) => Promise<void>;

/** Steps with a fresh SQLite file under `dir`. */
function onSqlite(dir: string, name: string): OnStore {
  return async (steps) => {
    const file = join(dir, name);
    const store = await openSqliteStore({ file });
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Sqlite(file) }) });
    try {
      await store.migrate();
      await steps(store, db);
    } finally {
      await db.destroy();
      await store.close();
    }
  };
}

/** Steps with a fresh PostgreSQL schema, dropped after. */
const onPostgres: OnStore = (steps) =>
  roundTripOnPostgres('0027f', async (open, db) => {
    const store = await open();
    try {
      await store.migrate();
      await steps(store, db);
    } finally {
      await store.close();
    }
  });

/** A blocking echo: no task_events row; its log reads back whole, from any seq, with any limit. */
async function echoInTaskRow(store: Store, db: Kysely<unknown>): Promise<void> {
  const c = echoCommit(`t-${randomBytes(4).toString('hex')}`);
  await store.commit([c]);
  expect(await eventsRows(db, c.task.id)).toEqual([]);
  const { rows } = await sql<{ final_events: string | null }>`select final_events from tasks where id = ${c.task.id}`.execute(db);
  expect(rows[0]?.final_events).toBe(prepareCommit(c).eventsRow!.json);
  expect(await store.readEvents(c.task.id, 0)).toEqual(c.events);
  for (let after = 0; after <= 3; after++) {
    expect(await store.readEvents(c.task.id, after)).toEqual(c.events.slice(after));
    for (let limit = 1; limit <= 4; limit++) expect(await store.readEvents(c.task.id, after, limit)).toEqual(c.events.slice(after, after + limit));
  }
}

/** Two working commits in task_events, the terminal one in the task row; the log reads in order across both. */
async function stepsThenTaskRow(store: Store, db: Kysely<unknown>): Promise<void> {
  const first = newTask({ state: 'TASK_STATE_WORKING' });
  const second = update(first, { state: 'TASK_STATE_WORKING', events: 2 });
  const last = update(second, { state: 'TASK_STATE_COMPLETED', events: 2 });
  for (const c of [first, second, last]) await store.commit([c]);
  const id = first.task.id;
  expect((await eventsRows(db, id)).map((r) => [r.first_seq, r.seq])).toEqual([
    [first.events[0]!.seq, first.seq],
    [second.events[0]!.seq, second.seq],
  ]);
  const all = [...first.events, ...second.events, ...last.events];
  expect(await store.readEvents(id, 0)).toEqual(all);
  for (let after = 0; after <= all.length; after++) {
    expect(await store.readEvents(id, after)).toEqual(all.slice(after));
    for (let limit = 1; limit <= all.length + 1; limit++) expect(await store.readEvents(id, after, limit)).toEqual(all.slice(after, after + limit));
  }
  const { rows } = await sql<{ final_events: string | null }>`select final_events from tasks where id = ${id}`.execute(db);
  expect(rows[0]?.final_events).toBe(prepareCommit(last).eventsRow!.json);

  // A later commit of the task row without events (a usage write after the end) keeps what the row
  // holds: the update binds null for final_events and must not overwrite the terminal events.
  // Its task is unchanged: the referring events row (ADR 0050) takes its status from the row.
  const after = { ...update(last, { state: 'TASK_STATE_COMPLETED', events: 0 }), task: last.task };
  expect(prepareCommit(after).eventsRow).toBeUndefined();
  await store.commit([after]);
  const again = await sql<{ final_events: string | null }>`select final_events from tasks where id = ${id}`.execute(db);
  expect(again.rows[0]?.final_events).toBe(prepareCommit(last).eventsRow!.json);
  expect(await store.readEvents(id, 0)).toEqual(all);
}

describe('a terminal commit’s events in the task row (migration 0027)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentport-0027-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('SQLite: writes no task_events row for a task terminal in its first commit, and reads its log back whole, from any seq, with any limit', async () => {
    await onSqlite(dir, 'echo.db')(echoInTaskRow);
  });

  it('PostgreSQL: writes no task_events row for a task terminal in its first commit, and reads its log back the same', async () => {
    await onPostgres(echoInTaskRow);
  });

  it('SQLite: keeps the earlier commits in task_events and puts only the terminal one in the task row; the log reads in order across both', async () => {
    await onSqlite(dir, 'steps.db')(stepsThenTaskRow);
  });

  it('PostgreSQL: keeps the earlier commits in task_events and puts only the terminal one in the task row, read in order', async () => {
    await onPostgres(stepsThenTaskRow);
  });

  it('reads the task row by its primary key (EXPLAIN QUERY PLAN)', () => {
    const raw = new Sqlite(':memory:');
    try {
      const statements = compileStatements(new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }) }));
      // the schema the store migrates to, enough for the plan: the table and its primary key
      raw.exec('create table tasks (id text primary key, agent_id text, owner text, seq integer, task text, final_events text)');
      raw.exec('create table task_events (task_id text not null, seq integer not null, first_seq integer, events text, created_at integer, primary key (task_id, seq)) without rowid');
      const plan = (text: string) => (raw.prepare(`explain query plan ${text}`).all(...Array.from({ length: (text.match(/\?/g) ?? []).length }, () => 'x')) as { detail: string }[]).map((r) => r.detail).join('; ');
      expect(plan(statements.selectTaskRowText)).toMatch(/^SEARCH tasks USING INDEX sqlite_autoindex_tasks_1 \(id=\?\)$/);
      expect(plan(statements.selectEvents)).toMatch(/^SEARCH task_events USING PRIMARY KEY \(task_id=\? AND seq>\?\)$/);
    } finally {
      raw.close();
    }
  });
});

/** Commits the echo at the latest migration (its events in final_events), goes down to 0026 and checks the row, then up. */
async function roundTrip(open: () => Promise<Store>, db: Kysely<unknown>, migrator: Migrator, schema?: string): Promise<void> {
  const c = echoCommit(`t-${randomBytes(4).toString('hex')}`);
  const json = prepareCommit(c).eventsRow!.json;
  let store = await open();
  await store.migrate();
  await store.commit([c]);
  await store.close();
  expect(await eventsRows(db, c.task.id)).toEqual([]);

  expect((await migrateTo(migrator, BEFORE, schema)).error).toBeUndefined();
  // the row a build before 0027 writes for this commit
  expect(await eventsRows(db, c.task.id)).toEqual([{ task_id: c.task.id, seq: 3, first_seq: 1, events: json, created_at: T0 + 2 }]);

  store = await open();
  await store.migrate();
  expect(await store.readEvents(c.task.id, 0)).toEqual(c.events);
  expect(await store.readEvents(c.task.id, 1, 1)).toEqual(c.events.slice(1, 2));
  await store.close();
}

describe('migration 0027 down and up', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentport-0027-mig-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('SQLite: down writes the task row’s events back as their task_events row; up reads them from there', async () => {
    await roundTripOnSqlite(dir, roundTrip);
  });

  it('PostgreSQL: the same', async () => {
    await roundTripOnPostgres('0027', roundTrip);
  });
});
