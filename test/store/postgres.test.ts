/**
 * The store contract against a real PostgreSQL (AGENTPORT_TEST_PG, default the local server).
 * Each store gets a fresh schema, all dropped at the end. An unreachable server fails the run:
 * a skipped suite would let a broken PG store pass unnoticed.
 */
import { randomBytes } from 'node:crypto';
import { Kysely, Migrator, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore, StoreUnavailableError } from '../../src/store/index.js';
import { InCodeMigrationProvider } from '../../src/store/migrations/index.js';
import { describeStoreContract } from './store-contract.js';
import { migrateTo } from '../support/migrate-to.js';

const url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const run = `t_${randomBytes(5).toString('hex')}`;
const schemas: string[] = [];

function freshSchema(): string {
  const schema = `${run}_${schemas.length}`;
  schemas.push(schema);
  return schema;
}

beforeAll(async () => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (err) {
    throw new Error(`PostgreSQL unreachable at ${url} (set AGENTPORT_TEST_PG): ${(err as Error).message}`);
  } finally {
    await client.end().catch(() => {});
  }
});

afterAll(async () => {
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    for (const s of schemas) await client.query(`drop schema if exists "${s}" cascade`);
  } finally {
    await client.end();
  }
});

/** the schema of the store the contract opened last: its peer and raw SQL go there */
let current = '';

describeStoreContract(
  'postgres',
  () => {
    current = freshSchema();
    return openPostgresStore({ connectionString: url, schema: current, connectionTimeoutMs: 5000 });
  },
  {
    openPeer: () => openPostgresStore({ connectionString: url, schema: current, connectionTimeoutMs: 5000 }),
    exec: async (text) => {
      const client = new pg.Client({ connectionString: url, options: `-c search_path=${current}` });
      await client.connect();
      try {
        await client.query(text);
      } finally {
        await client.end();
      }
    },
  },
);

describe('postgres store specifics', () => {
  it('migrates while other schemas are created and dropped around it (a shared database)', async () => {
    // Kysely's migrator introspects every schema; a concurrent DROP SCHEMA must not fail our start.
    const churn = new pg.Client({ connectionString: url });
    await churn.connect();
    let stop = false;
    const loop = (async () => {
      for (let i = 0; !stop; i++) {
        const name = `${run}_churn_${i}`;
        await churn.query(`create schema "${name}"; create table "${name}".t (a int, b text, c numeric(8,2))`);
        await churn.query(`drop schema "${name}" cascade`);
        // A busy shared database, not a tight loop: other tenants come and go every few ms.
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    try {
      for (let i = 0; i < 8; i++) {
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
  }, 60_000);

  it('creates its tables in its own schema', async () => {
    const schema = freshSchema();
    const store = await openPostgresStore({ connectionString: url, schema });
    try {
      await store.migrate();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query<{ table_name: string }>('select table_name from information_schema.tables where table_schema = $1 order by table_name', [schema]);
      await client.end();
      expect(rows.map((r) => r.table_name)).toEqual(expect.arrayContaining(['push_configs', 'push_outbox', 'signing_keys', 'task_events', 'tasks']));
    } finally {
      await store.close();
    }
  });

  it('indexes tasks for the orphan sweep', async () => {
    const schema = freshSchema();
    const store = await openPostgresStore({ connectionString: url, schema });
    try {
      await store.migrate();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query<{ indexdef: string }>('select indexdef from pg_indexes where schemaname = $1 and indexname = $2', [schema, 'tasks_orphan_idx']);
      await client.end();
      expect(rows.map((r) => r.indexdef)).toEqual([expect.stringMatching(/\(state, lease_expires_at\)$/)]);
    } finally {
      await store.close();
    }
  });

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

  it('rejects a schema name that is not a plain identifier', async () => {
    await expect(openPostgresStore({ connectionString: url, schema: 'x; drop table y' })).rejects.toThrow(/schema name/);
  });

  it('ping names the server and the cause when it cannot be reached', async () => {
    const store = await openPostgresStore({ connectionString: 'postgres://agentport:secret@127.0.0.1:1/nowhere', connectionTimeoutMs: 2000 });
    try {
      const err = await store.ping().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(StoreUnavailableError);
      const message = (err as Error).message;
      expect(message).toContain('PostgreSQL agentport@127.0.0.1:1/nowhere');
      expect(message).toContain('ECONNREFUSED');
      expect(message).not.toContain('secret');
    } finally {
      await store.close();
    }
  });

  it('leaves the global int8 parser of pg untouched', () => {
    expect(pg.types.getTypeParser(pg.types.builtins.INT8, 'text')('42')).toBe('42');
  });
});
