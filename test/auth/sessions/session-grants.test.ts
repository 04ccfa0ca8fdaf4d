/**
 * Sessions that stand on an OAuth grant (migration 0015_session_grants), on SQLite and PostgreSQL:
 * a session written before the migration (an older replica's) still resolves as its local user's;
 * a local user's session with a grant reads the user and ends with the grant; an account with no
 * user row has exactly the scopes kept at sign-in, and its session ends with its grant; no
 * session outlives the `notAfter` it was begun with.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { BrowserSessions } from '../../../src/auth/sessions/browser-sessions.js';
import { InCodeMigrationProvider } from '../../../src/store/migrations/index.js';
import { openPostgresStore, openSqliteStore, type Store } from '../../../src/store/index.js';
import { migrateTo } from '../../support/migrate-to.js';

const PG = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `t_sessgrant_${randomBytes(4).toString('hex')}`;
const dir = mkdtempSync(path.join(tmpdir(), 'agentport-session-grants-'));
const HOUR = 3_600_000;

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  await c.query(`drop schema if exists "${schema}" cascade`);
  await c.end();
});

const dialects: Array<[string, () => Promise<{ old: Kysely<unknown>; migrator: Migrator }>, () => Promise<Store>]> = [
  [
    'sqlite',
    async () => {
      const old = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Sqlite(path.join(dir, 'old.db')) }) });
      return { old, migrator: new Migrator({ db: old, provider: new InCodeMigrationProvider('sqlite') }) };
    },
    () => openSqliteStore({ file: path.join(dir, 'old.db') }),
  ],
  [
    'postgres',
    async () => {
      const c = new pg.Client({ connectionString: PG });
      await c.connect();
      await c.query(`create schema "${schema}"`);
      await c.end();
      const old = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: PG, max: 1, options: `-c search_path=${schema}` }) }) });
      return { old, migrator: new Migrator({ db: old, provider: new InCodeMigrationProvider('postgres'), migrationTableSchema: schema }) };
    },
    () => openPostgresStore({ connectionString: PG, schema }),
  ],
];

const cookie = () => randomBytes(32).toString('base64url');
const idOf = (token: string) => createHash('sha256').update(token).digest('base64url');
const grant = (accountId: string) => ({ payload: { accountId, clientId: 'agentport-console' }, expiresAt: Date.now() + 24 * HOUR });

describe.each(dialects)('sessions on grants (0015_session_grants) on %s', (_name, older, open) => {
  it('keeps an older session working, and ends each kind of session with its grant', async () => {
    const { old, migrator } = await older();
    expect((await migrateTo(migrator, '0013_task_live_index')).error).toBeUndefined();
    // A session written by a build without 0015: only the user and the times.
    const oldToken = cookie();
    await old
      .insertInto('users' as never)
      .values({ username: 'carol', password_hash: 'x', scopes: JSON.stringify(['a2a:discover']), created_at: Date.now() } as never)
      .execute();
    await old
      .insertInto('sessions' as never)
      .values({ id: idOf(oldToken), username: 'carol', purpose: 'console', created_at: Date.now(), expires_at: Date.now() + HOUR } as never)
      .execute();
    await old.destroy();

    const store = await open();
    try {
      await store.migrate();
      const sessions = new BrowserSessions(store.oauth, randomBytes(32), { purpose: 'console', ttlMs: 8 * HOUR });
      expect(await sessions.resolve(oldToken)).toMatchObject({ username: 'carol', scopes: ['a2a:discover'] });

      // A local user on a grant: the user's scopes, read now; the grant's end is the session's.
      await store.oauth.upsertRecord('Grant', 'g-carol', grant('carol'));
      const local = await sessions.begin('carol', { grant: { id: 'g-carol' } });
      expect(await sessions.resolve(local.token)).toMatchObject({ username: 'carol', scopes: ['a2a:discover'] });
      await store.oauth.revokeRecordsOfGrant('g-carol', Date.now());
      expect(await sessions.resolve(local.token)).toBeUndefined();
      expect(await sessions.resolve(oldToken)).toBeDefined();

      // An upstream account: no user row; the scopes and usecase kept at sign-in, nothing more.
      const account = 'https://idp.example#alice';
      await store.oauth.upsertRecord('Grant', 'g-alice', grant(account));
      const notAfter = Date.now() + HOUR;
      const upstream = await sessions.begin(account, { grant: { id: 'g-alice', scopes: ['a2a:discover', 'mcp:tools'], usecase: 'demo' }, notAfter });
      expect(upstream.expiresAt).toBe(notAfter);
      expect(await sessions.resolve(upstream.token)).toEqual({ id: idOf(upstream.token), username: account, scopes: ['a2a:discover', 'mcp:tools'], usecase: 'demo', grantId: 'g-alice' });
      // An account granted nothing has nothing (an empty snapshot is not "read the user").
      const bare = await sessions.begin(account, { grant: { id: 'g-alice', scopes: [] } });
      expect(await sessions.resolve(bare.token)).toMatchObject({ username: account, scopes: [] });
      await store.oauth.revokeRecordsOfGrant('g-alice', Date.now());
      expect(await sessions.resolve(upstream.token)).toBeUndefined();
      // Ended, not only refused: the row is gone.
      expect(await store.oauth.sessions.findSession(idOf(upstream.token), Date.now())).toBeUndefined();

      // A session that asks for a scope its snapshot lacks is ended (the admin page's rule).
      await store.oauth.upsertRecord('Grant', 'g-alice2', grant(account));
      const strict = new BrowserSessions(store.oauth, randomBytes(32), { purpose: 'console', ttlMs: 8 * HOUR, requiredScope: 'admin' });
      const refused = await strict.begin(account, { grant: { id: 'g-alice2', scopes: ['a2a:discover'] } });
      expect(await strict.resolve(refused.token)).toBeUndefined();
      expect(await store.oauth.sessions.findSession(idOf(refused.token), Date.now())).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});
