import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { RUNNING_STATES } from '../../src/core/cluster/orphan-sweeper.js';
import { openPostgresStore } from '../../src/store/index.js';
import { RUNNING_INDEX_STATES } from '../../src/store/migrations/0024-task-running-index.js';
import { expectSqliteTaskIndexesUnchanged } from '../support/sqlite-indexes-unchanged.js';
import { withPgSchema } from '../support/pg-schema.js';
import { expectOtherTaskIndexesUnchanged, pgTaskIndexesAcross } from '../support/pg-task-indexes.js';

const BEFORE = '0023_task_usage_in_task_row';
const AFTER = '0024_task_running_index';
const url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

describe('migration 0024 (the orphan sweep indexes running tasks only)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentport-0024-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("indexes every state the sweep claims in (the orphan sweeper's running states)", async () => {
    // a state the sweep asks for outside the index would make it scan the whole table again
    expect([...RUNNING_INDEX_STATES].sort()).toEqual([...RUNNING_STATES].sort());
  });

  it('replaces the full (state, lease_expires_at) index by a partial one on PostgreSQL, and back on down', async () => {
    await withPgSchema('0024', async (db, schema, migrator) => {
      const across = await pgTaskIndexesAcross(db, schema, migrator, { before: BEFORE, after: AFTER });
      expect(across.before.tasks_orphan_idx).toMatch(/\(state, lease_expires_at\)$/);
      expect(across.before.tasks_running_idx).toBeUndefined();
      expect(across.after.tasks_orphan_idx).toBeUndefined();
      expect(across.after.tasks_running_idx).toBe(
        `CREATE INDEX tasks_running_idx ON ${schema}.tasks USING btree (state, lease_expires_at) WHERE (state = ANY (ARRAY['TASK_STATE_SUBMITTED'::text, 'TASK_STATE_WORKING'::text, 'TASK_STATE_AUTH_REQUIRED'::text]))`,
      );
      expectOtherTaskIndexesUnchanged(across, ['tasks_orphan_idx', 'tasks_running_idx']);
    });
  });

  it('changes nothing on SQLite, up or down', async () => {
    await expectSqliteTaskIndexesUnchanged(dir, BEFORE, AFTER, 'tasks_live_idx');
  });

  it('the sweep and start-up recovery find running tasks through the partial index among 20,000 finished ones', async () => {
    await withPgSchema('0024', async (db, schema) => {
      const open = async () => {
        const store = await openPostgresStore({ connectionString: url, schema });
        await store.migrate();
        return store;
      };
      await (await open()).close();
      const row = (id: string, state: string, created: number, lease: string) =>
        `('${id}', 'a', 'o', 'c-${id}', '${state}', ${created}, ${created}, 1, 1, '{"id":"${id}","contextId":"c-${id}","status":{"state":"${state}"}}', ${lease})`;
      await sql
        .raw(
          `insert into tasks (id, agent_id, owner, context_id, state, status_time, created_at, seq, version, task, lease_owner, lease_expires_at)
           select 'done-' || g, 'a', 'o', 'c', 'TASK_STATE_COMPLETED', g, g, 1, 1, '{}', null, null from generate_series(1, 20000) as g`,
        )
        .execute(db);
      await sql
        .raw(
          `insert into tasks (id, agent_id, owner, context_id, state, status_time, created_at, seq, version, task, lease_owner, lease_expires_at) values
           ${row('w-expired', 'TASK_STATE_WORKING', 30001, "'gone', 5")}, ${row('s-free', 'TASK_STATE_SUBMITTED', 30002, 'null, null')},
           ${row('a-free', 'TASK_STATE_AUTH_REQUIRED', 30003, 'null, null')}, ${row('w-held', 'TASK_STATE_WORKING', 30004, "'alive', 9000000000000")}`,
        )
        .execute(db);
      await sql.raw('analyze tasks').execute(db);
      const scans = async () => {
        await sql.raw('select pg_stat_clear_snapshot()').execute(db);
        const { rows } = await sql<{ n: string }>`select idx_scan as n from pg_stat_user_indexes where schemaname = ${schema} and indexrelname = 'tasks_running_idx'`.execute(db);
        return Number(rows[0]!.n);
      };
      /** Scans of the index by `fn`, run on a store of its own: a backend reports its statistics for certain only as it exits. */
      const scansBy = async (fn: (store: Awaited<ReturnType<typeof open>>) => Promise<void>) => {
        const before = await scans();
        const store = await open();
        try {
          await fn(store);
        } finally {
          await store.close();
        }
        for (let i = 0; i < 50 && (await scans()) === before; i++) await new Promise((r) => setTimeout(r, 100));
        return (await scans()) - before;
      };

      expect(
        await scansBy(async (store) => {
          const recovered = await store.findTasksInStates(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'], 10);
          expect(recovered.map((t) => t.task.id)).toEqual(['w-expired', 's-free', 'w-held']);
        }),
      ).toBeGreaterThan(0);
      expect(
        await scansBy(async (store) => {
          const claimed = await store.claimOrphanedTasks(RUNNING_STATES, 'me', 10_000, 20_000, 20);
          expect(claimed.map((t) => [t.task.id, t.previousLease?.owner ?? null])).toEqual([
            ['w-expired', 'gone'],
            ['s-free', null],
            ['a-free', null],
          ]);
        }),
      ).toBeGreaterThan(0);
    });
  });
});
