/**
 * Migration 0026 (the credentials generation, ADR 0052): on SQLite every write to a row an API
 * key's standing is read from (the key, its owner, its grant) raises the number, by this
 * connection or another one (the CLI's), and writes to rows no key stands on (tokens, sessions,
 * tasks) leave it alone; up and down create and remove the table and its triggers. PostgreSQL
 * offers no generation (reading it would cost a round trip) and the migration leaves it unchanged.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { openPostgresStore, openSqliteStore, type SqliteStore, type Store } from '../../src/store/index.js';
import { InCodeMigrationProvider } from '../../src/store/migrations/index.js';
import { migrateTo } from '../support/migrate-to.js';
import { newTask } from './fixtures.js';

const PG = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const dir = mkdtempSync(path.join(tmpdir(), 'agentport-generation-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const BEFORE = '0025_events_row_task_refs';
const AFTER = '0026_credentials_generation';

let files = 0;
async function twoConnections(): Promise<{ server: SqliteStore; cli: SqliteStore; raw: Sqlite.Database; close(): Promise<void> }> {
  const file = path.join(dir, `g${files++}.db`);
  const server = await openSqliteStore({ file });
  await server.migrate();
  const cli = await openSqliteStore({ file, checkpointThread: false });
  const raw = new Sqlite(file);
  return {
    server,
    cli,
    raw,
    async close() {
      raw.close();
      await cli.close();
      await server.close();
    },
  };
}

describe('the credentials generation on SQLite', () => {
  it('is raised by every write to a key, its owner or its grant, from another connection too', async () => {
    const { server, cli, raw, close } = await twoConnections();
    try {
      const now = Date.now();
      let seen = server.credentialsGeneration();
      /** Whether the server's connection sees a new generation after `write` (run on the other connection). */
      const raises = async (write: () => unknown): Promise<boolean> => {
        await write();
        const next = server.credentialsGeneration();
        const raised = next !== seen;
        seen = next;
        return raised;
      };
      const k = createApiKey({ subject: 'olga', scopes: ['a2a:discover'], owner: 'olga', grantId: 'g-1', now });
      expect(await raises(() => cli.putApiKey(k.record))).toBe(true);
      expect(await raises(() => cli.revokeApiKey(k.record.keyId, now))).toBe(true);
      expect(await raises(() => raw.prepare('delete from api_keys where key_id = ?').run(k.record.keyId))).toBe(true);

      expect(await raises(() => cli.oauth.putUser({ username: 'olga', passwordHash: 'x', scopes: ['a2a:discover'], createdAt: now }))).toBe(true);
      expect(await raises(() => cli.oauth.setUserScopes('olga', []))).toBe(true);
      expect(await raises(() => raw.prepare('delete from users where username = ?').run('olga'))).toBe(true);

      expect(await raises(() => cli.oauth.upsertRecord('Grant', 'g-1', { payload: { accountId: 'up#1' }, expiresAt: now + 60_000 }))).toBe(true);
      expect(await raises(() => cli.oauth.upsertRecord('Grant', 'g-1', { payload: { accountId: 'up#1' }, expiresAt: now - 1 }))).toBe(true);
      expect(await raises(() => cli.oauth.revokeRecordsOfGrant('g-1', now))).toBe(true);
      expect(await raises(() => cli.oauth.sweepExpired(now))).toBe(true);
      expect(await server.oauth.findRecord('Grant', 'g-1', 0)).toBeUndefined();
      // A row turned into a grant, or out of one, counts too.
      expect(await raises(() => cli.oauth.upsertRecord('Session', 's-1', { payload: {} }))).toBe(false);
      expect(await raises(() => raw.prepare(`update oauth_records set model = 'Grant' where id = 's-1'`).run())).toBe(true);
      expect(await raises(() => raw.prepare(`update oauth_records set model = 'Session' where id = 's-1'`).run())).toBe(true);
    } finally {
      await close();
    }
  });

  it('is left alone by writes no key stands on: tokens, sessions, tasks', async () => {
    const { server, cli, close } = await twoConnections();
    try {
      const before = server.credentialsGeneration();
      await cli.oauth.upsertRecord('AccessToken', 't-1', { payload: {}, grantId: 'g-9', expiresAt: Date.now() + 60_000 });
      await cli.oauth.revokeRecord('AccessToken', 't-1', Date.now());
      await cli.oauth.upsertRecord('Interaction', 'i-1', { payload: {}, uid: 'u-1' });
      await cli.oauth.deleteRecord('Interaction', 'i-1');
      await server.commit([newTask()]);
      expect(server.credentialsGeneration()).toBe(before);
    } finally {
      await close();
    }
  });

  it('is created by up and removed with its triggers by down', async () => {
    const file = path.join(dir, 'migration.db');
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Sqlite(file) }) });
    try {
      const migrator = new Migrator({ db, provider: new InCodeMigrationProvider('sqlite') });
      expect((await migrateTo(migrator, AFTER)).error).toBeUndefined();
      const objects = async () => (await sql<{ type: string; name: string }>`select type, name from sqlite_master where name like '%credentials_generation' order by name`.execute(db)).rows;
      expect(await objects()).toEqual([
        { type: 'trigger', name: 'api_keys_delete_credentials_generation' },
        { type: 'trigger', name: 'api_keys_insert_credentials_generation' },
        { type: 'trigger', name: 'api_keys_update_credentials_generation' },
        { type: 'table', name: 'credentials_generation' },
        { type: 'trigger', name: 'oauth_records_delete_credentials_generation' },
        { type: 'trigger', name: 'oauth_records_insert_credentials_generation' },
        { type: 'trigger', name: 'oauth_records_update_credentials_generation' },
        { type: 'trigger', name: 'users_delete_credentials_generation' },
        { type: 'trigger', name: 'users_insert_credentials_generation' },
        { type: 'trigger', name: 'users_update_credentials_generation' },
      ]);
      expect((await sql<{ id: number; n: number }>`select id, n from credentials_generation`.execute(db)).rows).toEqual([{ id: 1, n: 0 }]);
      expect((await migrateTo(migrator, BEFORE)).error).toBeUndefined();
      expect(await objects()).toEqual([]);
      // Writes work without the table once the triggers are gone with it.
      await sql`insert into users (username, password_hash, scopes, created_at) values ('u', 'x', '[]', 1)`.execute(db);
    } finally {
      await db.destroy();
    }
  });
});

describe('the credentials generation on PostgreSQL', () => {
  it('is not offered, and the migration adds nothing', async () => {
    const schema = `t_gen_${randomBytes(4).toString('hex')}`;
    const store = await openPostgresStore({ connectionString: PG, schema, maxConnections: 1, connectionTimeoutMs: 5000 });
    const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: PG, max: 1 }) }) });
    try {
      await store.migrate();
      expect((await store.migrationStatus()).applied).toContain(AFTER);
      expect((store as Store).credentialsGeneration).toBeUndefined();
      const { rows } = await sql<{ n: string }>`select count(*) as n from information_schema.tables where table_schema = ${schema} and table_name = 'credentials_generation'`.execute(db);
      expect(Number(rows[0]!.n)).toBe(0);
    } finally {
      await store.close();
      await sql.raw(`drop schema if exists "${schema}" cascade`).execute(db);
      await db.destroy();
    }
  });
});
