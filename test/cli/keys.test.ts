/**
 * `agentport keys create|list|revoke`, in-process, against real SQLite files and the real local
 * PostgreSQL (AGENTPORT_TEST_PG; a fresh schema per test, all dropped at the end). On SQLite the
 * created key is then used against a running server, and stops working once revoked.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExpiry } from '../../src/cli/commands/keys.js';
import { runCli } from '../../src/cli/program.js';
import { rpc, startTestServer, userMessage } from '../support/server.js';
import { fakeIO } from './fake-io.js';

const argv = (...args: string[]) => ['node', 'agentport', ...args];
const tempDir = () => mkdtempSync(path.join(tmpdir(), 'agentport-cli-keys-'));
const pgUrl = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const run = `keys_${randomBytes(5).toString('hex')}`;
const schemas: string[] = [];

async function cli(cwd: string, ...args: string[]) {
  const io = fakeIO(cwd);
  await runCli(argv('keys', ...args), io);
  return io;
}

const keyOf = (out: string) => /^key {6}(ap_\S+)$/m.exec(out)?.[1];
const idOf = (out: string) => /^id {7}(\S+)$/m.exec(out)?.[1];

describe('parseExpiry', () => {
  it('reads lifetimes and future dates, refuses the rest', () => {
    const now = Date.UTC(2026, 0, 1);
    expect(parseExpiry('30d', now)).toBe(now + 30 * 86_400_000);
    expect(parseExpiry('12h', now)).toBe(now + 12 * 3_600_000);
    expect(parseExpiry('2027-01-01T00:00:00Z', now)).toBe(Date.UTC(2027, 0, 1));
    expect(parseExpiry('2025-01-01', now)).toBeUndefined();
    expect(parseExpiry('0d', now)).toBeUndefined();
    expect(parseExpiry('soon', now)).toBeUndefined();
  });
});

describe('agentport keys on SQLite', () => {
  it('creates a key that a running server accepts, lists it without its secret, and revokes it', async () => {
    const s = await startTestServer();
    try {
      const storage = `sqlite:${path.join(s.dataDir, 'agentport.db')}`;
      const created = await cli(s.dataDir, 'create', '--storage', storage, '--subject', 'ci-bot', '--scope', 'a2a:discover', '--scope', 'a2a:publish', '--expires', '30d');
      expect(created.exits).toEqual([]);
      const key = keyOf(created.out)!;
      const id = idOf(created.out)!;
      expect(key).toMatch(/^ap_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
      expect(key.startsWith(`ap_${id}_`)).toBe(true);
      expect(created.out).toContain('scopes   a2a:discover a2a:publish\n');
      expect(created.err).toContain('not shown again');

      const sent = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('hi') }, { authorization: `Bearer ${key}` });
      expect(sent.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');

      const listed = await cli(s.dataDir, 'list', '--storage', storage);
      expect(listed.exits).toEqual([]);
      expect(listed.out).toMatch(new RegExp(`^${id} +ci-bot +a2a:discover a2a:publish +- +\\S+ +\\S+ +active$`, 'm'));
      expect(listed.out).not.toContain(key.slice(`ap_${id}_`.length));

      const revoked = await cli(s.dataDir, 'revoke', id, '--storage', storage);
      expect(revoked.exits).toEqual([]);
      expect(revoked.out).toBe(`revoked  ${id}\n`);
      const refused = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('hi') }, { authorization: `Bearer ${key}` });
      expect(refused.status).toBe(401);
      expect((await cli(s.dataDir, 'list', '--storage', storage)).out).toMatch(new RegExp(`^${id} .* revoked$`, 'm'));
    } finally {
      await s.stop();
    }
  });

  it('migrates a new database file, says when there are no keys, and exits 1 revoking an unknown id', async () => {
    const cwd = tempDir();
    const list = await cli(cwd, 'list', '--storage', 'sqlite:new.db');
    expect(list.exits).toEqual([]);
    expect(list.out).toBe('no API keys\n');
    const revoke = await cli(cwd, 'revoke', '0123456789abcdef', '--storage', 'sqlite:new.db');
    expect(revoke.exits).toEqual([1]);
    expect(revoke.err).toBe('agentport: no API key with id 0123456789abcdef\n');
  });

  it('refuses a create without --subject or with an unreadable --expires (exit 2)', async () => {
    const cwd = tempDir();
    expect((await cli(cwd, 'create', '--storage', 'sqlite:k.db')).exits).toEqual([2]);
    const bad = await cli(cwd, 'create', '--storage', 'sqlite:k.db', '--subject', 'x', '--expires', 'tomorrow');
    expect(bad.exits).toEqual([2]);
    expect(bad.err).toContain('--expires "tomorrow"');
  });
});

describe('agentport keys on PostgreSQL', () => {
  beforeAll(async () => {
    const client = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 5000 });
    try {
      await client.connect();
    } catch (err) {
      throw new Error(`PostgreSQL unreachable at ${pgUrl} (set AGENTPORT_TEST_PG): ${(err as Error).message}`);
    } finally {
      await client.end().catch(() => {});
    }
  });

  afterAll(async () => {
    if (!schemas.length) return;
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    try {
      for (const s of schemas) await client.query(`drop schema if exists "${s}" cascade`);
    } finally {
      await client.end();
    }
  });

  function configIn(cwd: string, migrate = true): string {
    const schema = `${run}_${schemas.length}`;
    schemas.push(schema);
    writeFileSync(path.join(cwd, 'agentport.yaml'), `storage:\n  driver: postgres\n  url: ${pgUrl}\n  schema: ${schema}\n  migrate: ${migrate}\n`);
    return 'agentport.yaml';
  }

  it('creates, lists and revokes keys in the configured schema', async () => {
    const cwd = tempDir();
    const conf = configIn(cwd);
    const a = await cli(cwd, 'create', '--config', conf, '--subject', 'alice', '--usecase', 'sales');
    const b = await cli(cwd, 'create', '--config', conf, '--subject', 'bob', '--scope', 'admin', '--expires', '2w');
    expect([a.exits, b.exits]).toEqual([[], []]);
    expect(a.out).toContain('usecase  sales\n');
    expect(a.out).toContain('expires  never\n');
    const list = await cli(cwd, 'list', '--config', conf);
    expect(list.out.split('\n')[0]).toMatch(/^ID +SUBJECT +SCOPES +USECASE +CREATED +EXPIRES +STATUS$/);
    expect(list.out).toMatch(new RegExp(`^${idOf(a.out)} +alice +- +sales .* never +active$`, 'm'));
    expect(list.out).toMatch(new RegExp(`^${idOf(b.out)} +bob +admin +- .* active$`, 'm'));
    expect(list.out).not.toContain(keyOf(a.out)!);
    expect((await cli(cwd, 'revoke', idOf(a.out)!, '--config', conf)).exits).toEqual([]);
    expect((await cli(cwd, 'list', '--config', conf)).out).toMatch(new RegExp(`^${idOf(a.out)} .* revoked$`, 'm'));
  });

  it('refuses to write into a schema that is not migrated when storage.migrate is false', async () => {
    const cwd = tempDir();
    const conf = configIn(cwd, false);
    const r = await cli(cwd, 'create', '--config', conf, '--subject', 'alice');
    expect(r.exits).toEqual([1]);
    expect(r.err).toContain('run agentport db migrate first');
  });
});
