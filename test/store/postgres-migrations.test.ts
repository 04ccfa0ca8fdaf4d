/**
 * The PostgreSQL store's migrations on a shared database (AGENTPORT_TEST_PG, default the local
 * server): the database-wide migration lock, other schemas created and dropped during a migration,
 * an upgrade from 0001. Beside the store contract of postgres.test.ts, not in it: these run full
 * migrations, most of that file's time (67 of 179 s at load 10, issue 26), and in a file of their
 * own `unit`'s workers run them alongside the contract. Every schema made here is dropped at the end.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Kysely, Migrator, PostgresDialect } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/index.js';
import { InCodeMigrationProvider } from '../../src/store/migrations/index.js';
import { migrateTo } from '../support/migrate-to.js';
import { postgresTestSchemas } from '../support/postgres-test-schemas.js';

const pgTest = postgresTestSchemas();
const { url, run } = pgTest;
const freshSchema = () => pgTest.fresh();

describe('postgres store specifics: migrations on a shared database', () => {
  it('migrates an up-to-date schema without waiting for a migration running on another schema', async () => {
    const upToDate = freshSchema();
    await pgTest.template.cloneInto(upToDate);
    // Kysely's Migrator holds one lock for the whole database while a migration runs: hold it.
    const busy = freshSchema();
    const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1, options: `-c search_path=${busy}` }) }) });
    let holding!: () => void;
    const held = new Promise<'held'>((resolve) => (holding = () => resolve('held')));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const slow = migrateTo(
      new Migrator({
        db,
        provider: { getMigrations: async () => ({ '0001_slow': { up: async () => (holding(), released) } }) },
        migrationTableSchema: busy,
      }),
      '0001_slow',
      busy,
    );
    const store = await openPostgresStore({ connectionString: url, schema: upToDate });
    const deadline = new AbortController();
    try {
      expect(await Promise.race([held, slow.then((r) => r.error)])).toBe('held');
      const outcome = await Promise.race([store.migrate().then(() => 'migrated'), delay(10_000, 'still waiting for the lock', { signal: deadline.signal })]);
      expect(outcome).toBe('migrated');
    } finally {
      deadline.abort();
      release();
      expect((await slow).error).toBeUndefined();
      await store.close();
      await db.destroy();
    }
  });

  it('migrates while other schemas are created and dropped around it (a shared database)', async ({ signal }) => {
    // Kysely's migrator introspects every schema; a concurrent DROP SCHEMA must not fail our start.
    // A timed-out run stops its churn (signal) rather than leave it racing the next tests' migrations.
    const churn = new pg.Client({ connectionString: url });
    await churn.connect();
    let stop = false;
    const loop = (async () => {
      for (let i = 0; !stop && !signal.aborted; i++) {
        const name = `${run}_churn_${i}`;
        await churn.query(`create schema "${name}"; create table "${name}".t (a int, b text, c numeric(8,2))`);
        await churn.query(`drop schema "${name}" cascade`);
        // A busy shared database, not a tight loop: other tenants come and go every few ms.
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    try {
      for (let i = 0; i < 8 && !signal.aborted; i++) {
        const store = await openPostgresStore({ connectionString: url, schema: freshSchema(), connectionTimeoutMs: 5000 });
        try {
          await store.migrate();
          expect((await store.migrationStatus()).pending).toEqual([]);
        } finally {
          await store.close();
        }
      }
    } finally {
      stop = true;
      await loop;
      await churn.end();
    }
    // A time budget, not a speed claim: each of the eight migrations walks the shared catalog and
    // waits on the database-wide migration lock other test files hold; on a busy 2-core machine
    // eight took over 60 s (seen in a clean-clone run beside other suites), quiet ones ~10 s.
  }, 180_000);

  it('upgrades a schema an older Agentport left at 0001: its tasks stay, without leases, and can be claimed', async () => {
    const schema = freshSchema();
    const old = new Kysely<unknown>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1, options: `-c search_path=${schema}` }) }),
    });
    const { error } = await migrateTo(new Migrator({ db: old, provider: new InCodeMigrationProvider('postgres'), migrationTableSchema: schema }), '0001_initial', schema);
    const task = { id: 't-old', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' as const } };
    await old
      .insertInto('tasks' as never)
      .values({ id: 't-old', agent_id: 'a', owner: 'o', context_id: 'c1', state: 'TASK_STATE_WORKING', status_time: 1, created_at: 1, seq: 1, version: 3, task: JSON.stringify(task) } as never)
      .execute();
    await old.destroy();
    expect(error).toBeUndefined();

    const store = await openPostgresStore({ connectionString: url, schema });
    try {
      expect((await store.migrationStatus()).pending).toEqual([
        '0002_task_leases',
        '0003_signing_keys',
        '0004_api_keys',
        '0005_oauth',
        '0006_sessions',
        '0007_task_message_ids',
        '0008_usage',
        '0009_audit',
        '0010_quotas',
        '0011_usage_rollup_layout',
        '0012_task_trace_parent',
        '0013_task_live_index',
        '0014_task_counts',
        '0015_session_grants',
        '0016_api_key_owners',
        '0017_task_caller',
        '0018_remote_tokens',
        '0020_usage_cached_tokens',
        '0021_push_outbox_config_head',
        '0022_usage_remote_identity',
        '0023_task_usage_in_task_row',
        '0024_task_running_index',
        '0025_events_row_task_refs',
        '0026_credentials_generation',
        '0027_task_final_events',
        '0028_postgres_task_inserts',
        '0029_postgres_list_index_ascending',
        '0030_postgres_usage_time_brin',
      ]);
      await store.migrate();
      const stored = await store.getTask('a', 't-old');
      expect(stored).toMatchObject({ task, version: 3 });
      expect(stored).not.toHaveProperty('lease');
      expect((await store.claimOrphanedTasks(['TASK_STATE_WORKING'], 'r1', 10, 20, 10)).map((t) => t.version)).toEqual([4]);
    } finally {
      await store.close();
    }
  });
});
