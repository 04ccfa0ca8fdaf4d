/**
 * Migration 0006_sessions on a database an older Agentport left at 0005_oauth, on SQLite and
 * PostgreSQL: grants stored before it are found by account (deleting their user revokes them),
 * and clients an administrator created before it keep their registered scopes (they are marked).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_CLIENT_MARKER, ADMINISTRATOR } from '../../../src/auth/oauth/client-scope-ceiling.js';
import { InCodeMigrationProvider } from '../../../src/store/migrations/index.js';
import { openPostgresStore, openSqliteStore, type Store } from '../../../src/store/index.js';
import { migrateTo } from '../../support/migrate-to.js';

const PG = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `t_sessmig_${randomBytes(4).toString('hex')}`;
const dir = mkdtempSync(path.join(tmpdir(), 'agentport-sessions-migration-'));

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  await c.query(`drop schema if exists "${schema}" cascade`);
  await c.end();
});

const dialects: Array<[string, () => { old: Kysely<unknown>; migrator: Migrator }, () => Promise<Store>]> = [
  [
    'sqlite',
    () => {
      const old = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Sqlite(path.join(dir, 'old.db')) }) });
      return { old, migrator: new Migrator({ db: old, provider: new InCodeMigrationProvider('sqlite') }) };
    },
    () => openSqliteStore({ file: path.join(dir, 'old.db') }),
  ],
  [
    'postgres',
    () => {
      const old = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: PG, max: 1, options: `-c search_path=${schema}` }) }) });
      return { old, migrator: new Migrator({ db: old, provider: new InCodeMigrationProvider('postgres'), migrationTableSchema: schema }) };
    },
    () => openPostgresStore({ connectionString: PG, schema }),
  ],
];

describe.each(dialects)('migration 0006_sessions on %s', (name, older, open) => {
  it('fills in the account of older records and marks older administrator clients', async () => {
    if (name === 'postgres') {
      const c = new pg.Client({ connectionString: PG });
      await c.connect();
      await c.query(`create schema "${schema}"`);
      await c.end();
    }
    const { old, migrator } = older();
    const { error } = await migrateTo(migrator, '0005_oauth', schema);
    expect(error).toBeUndefined();
    const row = (model: string, id: string, payload: object, grantId: string | null = null) => ({
      model,
      id,
      payload: JSON.stringify(payload),
      grant_id: grantId,
      uid: null,
      expires_at: Date.now() + 600_000,
      consumed_at: null,
      revoked_at: null,
    });
    await old
      .insertInto('oauth_records' as never)
      .values([
        row('Grant', 'g-old', { accountId: 'carol', clientId: 'c' }),
        row('RefreshToken', 'rt-old', { accountId: 'carol', grantId: 'g-old' }, 'g-old'),
        { ...row('Client', 'ap-oldadmin', { client_id: 'ap-oldadmin', scope: 'admin' }), expires_at: null },
        { ...row('Client', 'dcr-old', { client_id: 'dcr-old' }), expires_at: null },
      ] as never)
      .execute();
    await old.destroy();

    const store = await open();
    try {
      await store.migrate();
      expect(await store.oauth.revokeAccount('carol', Date.now())).toEqual(['g-old']);
      expect(await store.oauth.isLive('Grant', 'g-old', Date.now())).toBe(false);
      expect(await store.oauth.findRecord('RefreshToken', 'rt-old', Date.now())).toBeUndefined();
      expect((await store.oauth.findRecord('Client', 'ap-oldadmin', Date.now()))?.payload).toMatchObject({ scope: 'admin', [ADMIN_CLIENT_MARKER]: ADMINISTRATOR });
      expect((await store.oauth.findRecord('Client', 'dcr-old', Date.now()))?.payload).not.toHaveProperty(ADMIN_CLIENT_MARKER);
    } finally {
      await store.close();
    }
  });
});
