/**
 * `agentport db migrate` and `agentport db status`, in-process, against real SQLite files and the
 * real local PostgreSQL (AGENTPORT_TEST_PG; a fresh schema per test, all dropped at the end).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import { InCodeMigrationProvider, KNOWN_MIGRATIONS, type SqlDialectName } from '../../src/store/migrations/index.js';
import { fakeIO } from './fake-io.js';
import { migrateTo } from '../support/migrate-to.js';

const argv = (...args: string[]) => ['node', 'agentport', ...args];
const tempDir = () => mkdtempSync(path.join(tmpdir(), 'agentport-cli-db-'));
const FUTURE = '9999_from_a_newer_agentport';

const pgUrl = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const run = `cli_${randomBytes(5).toString('hex')}`;
const schemas: string[] = [];
function freshSchema(): string {
  const schema = `${run}_${schemas.length}`;
  schemas.push(schema);
  return schema;
}

async function withPg<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  await withPg(async () => {}).catch((err: Error) => {
    throw new Error(`PostgreSQL unreachable at ${pgUrl} (set AGENTPORT_TEST_PG): ${err.message}`);
  });
});

afterAll(async () => {
  if (schemas.length === 0) return;
  await withPg(async (client) => {
    for (const s of schemas) await client.query(`drop schema if exists "${s}" cascade`);
  });
});

/** Applies the migrations up to `last` only, as an older Agentport left the database. */
async function migrateUpTo(dialect: SqlDialectName, last: string, target: { file: string } | { schema: string }): Promise<void> {
  const db =
    'file' in target
      ? new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Sqlite(target.file) }) })
      : new Kysely<unknown>({
          dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: pgUrl, max: 1, options: `-c search_path=${target.schema}` }) }),
        });
  try {
    const migrator = new Migrator({
      db,
      provider: new InCodeMigrationProvider(dialect),
      ...('schema' in target ? { migrationTableSchema: target.schema } : {}),
    });
    const { error } = await migrateTo(migrator, last, 'schema' in target ? target.schema : undefined);
    if (error) throw error;
  } finally {
    await db.destroy();
  }
}

async function cli(cwd: string, ...args: string[]) {
  const io = fakeIO(cwd);
  await runCli(argv('db', ...args), io);
  return io;
}

describe('agentport db', () => {
  it('documents migrate and status with their flags', async () => {
    const cwd = tempDir();
    const help = await cli(cwd, '--help');
    expect(help.out).toContain('migrate');
    expect(help.out).toContain('status');
    const migrate = await cli(cwd, 'migrate', '--help');
    for (const flag of ['--config', '--storage']) expect(migrate.out).toContain(flag);
  });

  describe('on SQLite', () => {
    it('migrate applies every migration to a new file, then reports it up to date', async () => {
      const cwd = tempDir();
      const first = await cli(cwd, 'migrate', '--storage', 'sqlite:data/agentport.db');
      const file = path.join(cwd, 'data', 'agentport.db');
      expect(first.exits).toEqual([]);
      expect(first.err).toBe('');
      expect(first.out).toBe(`${KNOWN_MIGRATIONS.map((n) => `applied  ${n}\n`).join('')}SQLite database ${file}: ${KNOWN_MIGRATIONS.length} migrations applied, up to date\n`);
      const second = await cli(cwd, 'migrate', '--storage', 'sqlite:data/agentport.db');
      expect(second.exits).toEqual([]);
      expect(second.out).toBe(`SQLite database ${file}: up to date\n`);
    });

    it('status lists the applied migrations and exits 0 when up to date, reading storage from the config file', async () => {
      const cwd = tempDir();
      mkdirSync(path.join(cwd, 'conf'));
      writeFileSync(path.join(cwd, 'conf', 'agentport.yaml'), 'storage: sqlite:./state/a.db\n');
      const migrate = await cli(cwd, 'migrate', '--config', 'conf/agentport.yaml');
      expect(migrate.exits).toEqual([]);
      // a relative path in the file is relative to the file
      expect(existsSync(path.join(cwd, 'conf', 'state', 'a.db'))).toBe(true);
      const status = await cli(cwd, 'status', '--config', 'conf/agentport.yaml');
      expect(status.exits).toEqual([]);
      for (const n of KNOWN_MIGRATIONS) expect(status.out).toContain(`applied  ${n}\n`);
      expect(status.out).toContain(`${KNOWN_MIGRATIONS.length} applied, 0 pending, 0 unknown: up to date`);
    });

    it('status on a file that does not exist says so, exits 1 and does not create it', async () => {
      const cwd = tempDir();
      const status = await cli(cwd, 'status', '--storage', 'sqlite:nothing-here.db');
      expect(status.exits).toEqual([1]);
      expect(status.out).toContain('does not exist yet');
      expect(existsSync(path.join(cwd, 'nothing-here.db'))).toBe(false);
    });

    it('status shows pending migrations of an older database and exits 1; migrate applies only those', async () => {
      const cwd = tempDir();
      const file = path.join(cwd, 'old.db');
      await migrateUpTo('sqlite', '0001_initial', { file });
      const before = await cli(cwd, 'status', '--storage', `sqlite:${file}`);
      expect(before.exits).toEqual([1]);
      expect(before.out).toContain('applied  0001_initial\n');
      expect(before.out).toContain('pending  0002_task_leases\n');
      expect(before.out).toContain('run agentport db migrate');
      const migrate = await cli(cwd, 'migrate', '--storage', `sqlite:${file}`);
      expect(migrate.exits).toEqual([]);
      expect(migrate.out).toContain('applied  0002_task_leases\n');
      expect(migrate.out).not.toContain('applied  0001_initial');
      expect((await cli(cwd, 'status', '--storage', `sqlite:${file}`)).exits).toEqual([]);
    });

    it('refuses a database migrated by a newer Agentport: status exits 1 naming it, migrate exits 1 and changes nothing', async () => {
      const cwd = tempDir();
      const file = path.join(cwd, 'newer.db');
      expect((await cli(cwd, 'migrate', '--storage', `sqlite:${file}`)).exits).toEqual([]);
      const raw = new Sqlite(file);
      raw.prepare('insert into kysely_migration (name, timestamp) values (?, ?)').run(FUTURE, '2100-01-01T00:00:00.000Z');
      raw.close();

      const status = await cli(cwd, 'status', '--storage', `sqlite:${file}`);
      expect(status.exits).toEqual([1]);
      expect(status.out).toContain(`unknown  ${FUTURE}\n`);
      expect(status.out).toContain('newer than this Agentport');
      const migrate = await cli(cwd, 'migrate', '--storage', `sqlite:${file}`);
      expect(migrate.exits).toEqual([1]);
      expect(migrate.err).toBe(`agentport: database schema is newer than this Agentport: unknown migrations ${FUTURE}; upgrade Agentport\n`);
    });

    it('exits 2 on a --storage value that is neither sqlite: nor postgres://', async () => {
      const cwd = tempDir();
      const io = await cli(cwd, 'migrate', '--storage', 'mysql://db/x');
      expect(io.exits).toEqual([2]);
      expect(io.err).toContain('storage: must be "sqlite:<path>", a postgres:// URL');
      expect(io.err).toContain('(from --storage)');
    });
  });

  describe('on PostgreSQL', () => {
    function configFor(cwd: string, schema: string): string {
      writeFileSync(path.join(cwd, 'agentport.yaml'), `storage:\n  driver: postgres\n  url: ${pgUrl}\n  schema: ${schema}\n`);
      return 'agentport.yaml';
    }

    it('migrate creates the schema and applies every migration; status then exits 0', async () => {
      const cwd = tempDir();
      const schema = freshSchema();
      const config = configFor(cwd, schema);
      const migrate = await cli(cwd, 'migrate', '--config', config);
      expect(migrate.err).toBe('');
      expect(migrate.exits).toEqual([]);
      for (const n of KNOWN_MIGRATIONS) expect(migrate.out).toContain(`applied  ${n}\n`);
      expect(migrate.out).toContain(`(schema ${schema}): ${KNOWN_MIGRATIONS.length} migrations applied, up to date`);
      const tables = await withPg((c) => c.query<{ table_name: string }>('select table_name from information_schema.tables where table_schema = $1', [schema]));
      expect(tables.rows.map((r) => r.table_name)).toEqual(expect.arrayContaining(['tasks', 'push_outbox', 'kysely_migration']));

      const again = await cli(cwd, 'migrate', '--config', config);
      expect(again.out).toMatch(/\(schema \w+\): up to date\n$/);
      const status = await cli(cwd, 'status', '--config', config);
      expect(status.exits).toEqual([]);
      expect(status.out).toContain(`${KNOWN_MIGRATIONS.length} applied, 0 pending, 0 unknown: up to date`);
    });

    it('status exits 1 on a schema never migrated, listing every migration pending', async () => {
      const cwd = tempDir();
      const status = await cli(cwd, 'status', '--config', configFor(cwd, freshSchema()));
      expect(status.exits).toEqual([1]);
      for (const n of KNOWN_MIGRATIONS) expect(status.out).toContain(`pending  ${n}\n`);
    });

    it('migrate upgrades an older schema, applying only what is pending', async () => {
      const cwd = tempDir();
      const schema = freshSchema();
      await migrateUpTo('postgres', '0001_initial', { schema });
      const status = await cli(cwd, 'status', '--config', configFor(cwd, schema));
      expect(status.exits).toEqual([1]);
      expect(status.out).toContain('pending  0002_task_leases\n');
      const migrate = await cli(cwd, 'migrate', '--config', 'agentport.yaml');
      expect(migrate.exits).toEqual([]);
      expect(migrate.out).toContain('applied  0002_task_leases\n');
      expect(migrate.out).not.toContain('applied  0001_initial');
    });

    it('migrate refuses a schema migrated by a newer Agentport', async () => {
      const cwd = tempDir();
      const schema = freshSchema();
      const config = configFor(cwd, schema);
      expect((await cli(cwd, 'migrate', '--config', config)).exits).toEqual([]);
      await withPg((c) => c.query(`insert into "${schema}".kysely_migration (name, timestamp) values ($1, $2)`, [FUTURE, '2100-01-01T00:00:00.000Z']));
      const migrate = await cli(cwd, 'migrate', '--config', config);
      expect(migrate.exits).toEqual([1]);
      expect(migrate.err).toContain(`unknown migrations ${FUTURE}; upgrade Agentport`);
      const status = await cli(cwd, 'status', '--config', config);
      expect(status.exits).toEqual([1]);
      expect(status.out).toContain(`unknown  ${FUTURE}\n`);
    });

    it('exits 1 naming the server and the cause when it cannot be reached', async () => {
      const cwd = tempDir();
      for (const command of ['migrate', 'status']) {
        const io = await cli(cwd, command, '--storage', 'postgres://agentport:secret@127.0.0.1:1/nowhere');
        expect(io.exits).toEqual([1]);
        expect(io.err).toContain('agentport: PostgreSQL agentport@127.0.0.1:1/nowhere (schema public) is unreachable');
        expect(io.err).toContain('ECONNREFUSED');
        expect(io.err).not.toContain('secret');
      }
    });
  });
});
