/**
 * The store contract against a real PostgreSQL (AGENTPORT_TEST_PG, default the local server).
 * Each store gets a fresh schema (a contract test's: a copy of one migrated once, emptied again
 * for each next test), all dropped at the end. An unreachable server fails the run: a skipped suite would let a broken PG store pass
 * unnoticed. The specifics that run migrations (a shared database's lock and catalog churn, an
 * upgrade from 0001) are in postgres-migrations.test.ts, run beside this file by `unit`'s workers.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openPostgresStore, StoreUnavailableError } from '../../src/store/index.js';
import { describeStoreContract } from './store-contract.js';
import { newTask } from './fixtures.js';
import { postgresTestSchemas } from '../support/postgres-test-schemas.js';

const pgTest = postgresTestSchemas();
const { url } = pgTest;
const freshSchema = () => pgTest.fresh();

/** the schema of the store the contract opened last: its peer and raw SQL go there */
let current = '';
/**
 * The copy of the template the last contract test used, if any: the next one gets it back emptied
 * with the template's rows (resetInto), not a new copy. Each test's stores are closed by then (the
 * contract closes its store after each test, a test its peers), and its SQL writes rows only.
 */
let used: string | undefined;

describeStoreContract(
  'postgres',
  () => {
    current = freshSchema();
    return openPostgresStore({ connectionString: url, schema: current, connectionTimeoutMs: 5000 });
  },
  {
    openMigrated: async () => {
      if (used) {
        current = used;
        await pgTest.template.resetInto(current);
      } else {
        current = freshSchema();
        await pgTest.template.cloneInto(current);
        used = current;
      }
      return openPostgresStore({ connectionString: url, schema: current, connectionTimeoutMs: 5000 });
    },
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

/** A schema's tables, columns, indexes, constraints, sequences and rows, with its name taken out. */
async function describeSchema(schema: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ line: string }>(
      `select 'column ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' notnull=' || a.attnotnull
              || ' identity=' || a.attidentity::text || ' default=' || coalesce(pg_get_expr(d.adbin, d.adrelid), '') as line
         from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
         left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
        where n.nspname = $1 and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped
       union all select 'index ' || indexname || ' ' || indexdef from pg_indexes where schemaname = $1
       union all select 'constraint ' || c.relname || '.' || co.conname || ' ' || pg_get_constraintdef(co.oid)
         from pg_constraint co join pg_class c on c.oid = co.conrelid join pg_namespace n on n.oid = co.connamespace where n.nspname = $1
       union all select 'sequence ' || sequencename || ' start=' || start_value || ' last=' || coalesce(last_value::text, 'none')
         from pg_sequences where schemaname = $1`,
      [schema],
    );
    const tables = await client.query<{ tablename: string }>('select tablename from pg_tables where schemaname = $1', [schema]);
    const data: string[] = [];
    for (const { tablename } of tables.rows) {
      // the migration bookkeeping's timestamps say when, not what: left out
      const r = await client.query<{ row: string }>(`select (to_jsonb(t) - 'timestamp')::text as row from "${schema}"."${tablename}" t`);
      data.push(...r.rows.map((x) => `row ${tablename} ${x.row}`));
    }
    return [...rows.map((r) => r.line), ...data].map((line) => line.replaceAll(schema, 'SCHEMA')).sort();
  } finally {
    await client.end();
  }
}

describe("the contract's migrated schemas", () => {
  it('are copies of the template with the catalog and rows of a schema migrated from scratch', async () => {
    // the template is such a schema: store.migrate() ran on it, empty
    const copied = freshSchema();
    await pgTest.template.cloneInto(copied);
    const expected = await describeSchema(pgTest.template.schema);
    expect(expected.filter((line) => line.startsWith('index ')).length).toBeGreaterThan(10);
    expect(expected).toContain('row kysely_migration {"name": "0017_task_caller"}');
    expect(await describeSchema(copied)).toEqual(expected);
  });

  it('are that again once a copy a test wrote to is emptied for the next test (rows, outbox sequence, migration rows)', async () => {
    const schema = freshSchema();
    await pgTest.template.cloneInto(schema);
    const expected = await describeSchema(pgTest.template.schema);
    const store = await openPostgresStore({ connectionString: url, schema, connectionTimeoutMs: 5000 });
    try {
      await store.commit([newTask({ outbox: [{ configId: 'x' }, { configId: 'y' }] }), newTask()]);
    } finally {
      await store.close();
    }
    const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
    await client.connect();
    try {
      await client.query("insert into kysely_migration (name, timestamp) values ('9999_future', '2100-01-01T00:00:00.000Z')");
      await client.query("update usage_rollup_state set rolled_until = 42 where id = 'hourly'");
    } finally {
      await client.end();
    }
    const written = await describeSchema(schema);
    expect(written).not.toEqual(expected);
    expect(written.filter((line) => line.startsWith('row tasks ')).length).toBe(2);
    await pgTest.template.resetInto(schema);
    expect(await describeSchema(schema)).toEqual(expected);
  });
});

describe('postgres store specifics', () => {
  it('creates its tables in its own schema', async () => {
    // the template: a fresh schema store.migrate() ran on
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ table_name: string }>('select table_name from information_schema.tables where table_schema = $1 order by table_name', [pgTest.template.schema]);
      expect(rows.map((r) => r.table_name)).toEqual(expect.arrayContaining(['push_configs', 'push_outbox', 'signing_keys', 'task_events', 'tasks']));
    } finally {
      await client.end();
    }
  });

  it('indexes tasks for the orphan sweep', async () => {
    // the template: a fresh schema store.migrate() ran on
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // Since migration 0024 only the running states are in it: the full index of 0002 is gone.
      const { rows } = await client.query<{ indexname: string; indexdef: string }>("select indexname, indexdef from pg_indexes where schemaname = $1 and indexname in ('tasks_orphan_idx', 'tasks_running_idx')", [
        pgTest.template.schema,
      ]);
      expect(rows.map((r) => r.indexname)).toEqual(['tasks_running_idx']);
      expect(rows[0]!.indexdef).toMatch(/\(state, lease_expires_at\) WHERE \(state = ANY \(ARRAY\['TASK_STATE_SUBMITTED'::text, 'TASK_STATE_WORKING'::text, 'TASK_STATE_AUTH_REQUIRED'::text\]\)\)$/);
    } finally {
      await client.end();
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
