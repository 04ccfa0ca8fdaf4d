/**
 * `agentport audit verify|list`, in-process, against real SQLite files and the real local
 * PostgreSQL: the store commands leave records, verify says OK with the count, and names the seq
 * of a record edited or removed beside it (exit 1).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import { postgresTestSchemas } from '../support/postgres-test-schemas.js';
import { fakeIO } from './fake-io.js';

const argv = (...args: string[]) => ['node', 'agentport', ...args];
// A PostgreSQL test's schema is a copy of one migrated once (test/support/store-templates.ts), not
// migrated from scratch by its first command: three migrations, each waiting on the database-wide
// migration lock other files hold, were most of this file's time (issue 26). The commands still
// run the migration step on it, with nothing left to apply; test/cli/db.test.ts migrates from scratch.
const pgTest = postgresTestSchemas();
const pgUrl = pgTest.url;

async function cli(dir: string, ...args: string[]) {
  const io = fakeIO(dir);
  await runCli(argv(...args), io);
  return io;
}

interface Target {
  /** how the command finds the database: --storage, or a config file naming the PG schema */
  opts: string[];
  exec(sql: string): Promise<void>;
}

async function sqliteTarget(): Promise<{ dir: string; target: Target }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentport-cli-audit-'));
  const file = path.join(dir, 'a.db');
  return {
    dir,
    target: {
      opts: ['--storage', `sqlite:${file}`],
      exec: async (text) => {
        const raw = new Sqlite(file);
        try {
          raw.exec(text);
        } finally {
          raw.close();
        }
      },
    },
  };
}

async function postgresTarget(): Promise<{ dir: string; target: Target }> {
  const schema = pgTest.fresh();
  await pgTest.template.cloneInto(schema);
  const dir = mkdtempSync(path.join(tmpdir(), 'agentport-cli-audit-'));
  const config = path.join(dir, 'agentport.yaml');
  writeFileSync(config, `storage:\n  driver: postgres\n  url: ${pgUrl}\n  schema: ${schema}\n`);
  return {
    dir,
    target: {
      opts: ['--config', config],
      exec: async (text) => {
        const client = new pg.Client({ connectionString: pgUrl, options: `-c search_path=${schema}` });
        await client.connect();
        try {
          await client.query(text);
        } finally {
          await client.end();
        }
      },
    },
  };
}

describe.each([
  ['sqlite', sqliteTarget],
  ['postgres', postgresTarget],
] as const)('agentport audit (%s)', (_name, make) => {
  it('records key and user changes made with the CLI, and verify says OK with the count', async () => {
    const { dir, target } = await make();
    const created = await cli(dir, 'keys', 'create', '--subject', 'ci-bot', '--scope', 'a2a:discover', ...target.opts);
    expect(created.exits).toEqual([]);
    const keyId = /^id\s+(\S+)$/m.exec(created.out)![1]!;
    expect((await cli(dir, 'keys', 'revoke', keyId, ...target.opts)).exits).toEqual([]);
    expect((await cli(dir, 'users', 'create', 'bob', ...target.opts)).exits).toEqual([]);
    expect((await cli(dir, 'users', 'delete', 'bob', ...target.opts)).exits).toEqual([]);

    const list = await cli(dir, 'audit', 'list', '--json', ...target.opts);
    const records = list.out
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { action: string; target: string; actorClient: string; actor: string });
    expect(records.map((r) => [r.action, r.target])).toEqual([
      ['apikey.created', `apikey:${keyId}`],
      ['apikey.revoked', `apikey:${keyId}`],
      ['user.created', 'user:bob'],
      ['user.deleted', 'user:bob'],
    ]);
    expect(records.every((r) => r.actorClient === 'agentport-cli' && r.actor.startsWith('os:'))).toBe(true);
    const table = await cli(dir, 'audit', 'list', '--action', 'user.created', ...target.opts);
    expect(table.out).toMatch(/^SEQ\s+TIME\s+ACTION/);
    expect(table.out).toContain('user:bob');
    expect(table.out).not.toContain('apikey.created');

    const verify = await cli(dir, 'audit', 'verify', ...target.opts);
    expect(verify.exits).toEqual([]);
    expect(verify.out).toMatch(/^OK: 4 records, chain intact \(last seq 4, hash [0-9a-f]{64}\)\n$/);
  });

  it('names the seq of an edited record and exits 1', async () => {
    const { dir, target } = await make();
    for (const name of ['u1', 'u2', 'u3']) await cli(dir, 'users', 'create', name, ...target.opts);
    await target.exec(`update audit_log set target = 'user:someone-else' where seq = 2`);
    const verify = await cli(dir, 'audit', 'verify', '--page-size', '1', ...target.opts);
    expect(verify.exits).toEqual([1]);
    expect(verify.out).toContain('BROKEN at seq 2: hash-mismatch');
    expect(verify.out).toContain('1 record before it verified');
  });

  it('names the missing seq of a removed record and exits 1', async () => {
    const { dir, target } = await make();
    for (const name of ['u1', 'u2', 'u3']) await cli(dir, 'users', 'create', name, ...target.opts);
    await target.exec('delete from audit_log where seq = 2');
    const verify = await cli(dir, 'audit', 'verify', ...target.opts);
    expect(verify.exits).toEqual([1]);
    expect(verify.out).toContain('BROKEN at seq 2: missing-row: seq 2 missing (next present row is 3)');
  });
});

describe('agentport audit usage', () => {
  it('says OK for an empty log and refuses a bad option value with exit 2', async () => {
    const { dir, target } = await sqliteTarget();
    expect((await cli(dir, 'audit', 'verify', ...target.opts)).out).toBe('OK: the audit log is empty\n');
    const bad = await cli(dir, 'audit', 'list', '--outcome', 'maybe', ...target.opts);
    expect(bad.exits).toEqual([2]);
    expect(bad.err).toContain('--outcome must be success, failure or denied');
  });
});

describe('agentport audit verify --api-key (over the API of a running server)', () => {
  const ADMIN = 'k-audit-admin-0123456789abcdef';
  const READER = 'k-audit-reader-0123456789abcdef';

  // The whole server's modules, loaded only when this block runs, and in a hook: on a busy machine
  // their loading alone took most of the test's 30 s (issue 26).
  let startTestServer: typeof import('../support/server.js').startTestServer;
  beforeAll(async () => {
    ({ startTestServer } = await import('../support/server.js'));
  });

  it('asks GET /api/v1/audit/verify with the key and prints what the database walk prints; a key without admin is exit 6', async () => {
    const s = await startTestServer({
      auth: {
        mode: 'required',
        apiKeys: [
          { key: ADMIN, subject: 'root', scopes: ['admin'] },
          { key: READER, subject: 'reader', scopes: ['a2a:discover'] },
        ],
      },
      audit: { enabled: true },
    });
    try {
      const dir = mkdtempSync(path.join(tmpdir(), 'agentport-cli-audit-api-'));
      // An audited action, so the chain is not empty: a key created through the API.
      const created = await fetch(`${s.http}/api/v1/keys`, { method: 'POST', headers: { 'x-api-key': ADMIN, 'content-type': 'application/json' }, body: JSON.stringify({ subject: 'bot', scopes: ['a2a:discover'] }) });
      expect(created.status).toBe(201);
      const ok = await cli(dir, 'audit', 'verify', '--url', s.http, '--api-key', ADMIN);
      expect(ok.exits).toEqual([]);
      expect(ok.out).toMatch(/^OK: \d+ records, chain intact \(last seq \d+, hash [0-9a-f]+\)\n$/);
      const refused = await cli(dir, 'audit', 'verify', '--url', s.http, '--api-key', READER);
      expect(refused.exits).toEqual([6]);
      expect(refused.err).toContain('needs an admin credential');
    } finally {
      await s.stop();
    }
  });
});
