/**
 * One server per data directory (issue 25 L1). Before, a second `agentport serve` on the same
 * data directory started without a word and marked the first one's running tasks FAILED. Now the
 * second start is refused, naming the first (pid, start time), with exit code 1; a lock left by a
 * killed server is taken over; PostgreSQL replicas sharing a data directory still start.
 *
 * Real servers: the built CLI as child processes.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../support/private-services.js';
import { runWithOutputInFiles, startCli, tempDir, type RunningCli } from './run-built-cli.js';

const PG_URL = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const running: RunningCli[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    r.child.kill('SIGKILL');
    await r.stop();
  }
});

async function serveArgs(dataDir: string, extra: string[] = []): Promise<string[]> {
  return ['serve', '--port', String(await freePort()), '--grpc-port', String(await freePort()), '--data-dir', dataDir, ...extra];
}

function start(args: string[], cwd: string): RunningCli {
  const r = startCli(args, { cwd });
  running.push(r);
  return r;
}

const portOf = (args: string[]) => args[args.indexOf('--port') + 1];

describe('agentport serve: one server per data directory (built CLI, child processes)', () => {
  it('a second server on the same data directory is refused, naming the first (pid, start time); the first keeps serving', async () => {
    const cwd = tempDir();
    const dataDir = path.join(cwd, 'data');
    const firstArgs = await serveArgs(dataDir);
    const first = start(firstArgs, cwd);
    const before = new Date();
    await first.started;

    const second = await runWithOutputInFiles(await serveArgs(dataDir), { cwd, timeoutMs: 20_000 });
    expect(second.code, second.stderr).toBe(1);
    expect(second.stderr).toContain(`Cannot start: the data directory ${dataDir} is in use by another Agentport (pid ${first.child.pid}, started `);
    const startedAt = /started ([0-9T:.Z-]+)\)/.exec(second.stderr)?.[1];
    expect(startedAt, second.stderr).toBeDefined();
    // The start time named is the first server's: between launching it and it saying it runs.
    expect(Math.abs(new Date(startedAt!).getTime() - before.getTime())).toBeLessThan(30_000);
    expect(second.stderr).toContain('give this one its own --data-dir');
    expect(second.stderr).not.toMatch(/listening/i);

    // The refused start touched nothing of the first's: it is still ready and answering.
    const ready = await fetch(`http://127.0.0.1:${portOf(firstArgs)}/readyz`);
    expect(ready.status).toBe(200);
    expect(first.child.exitCode).toBeNull();
  });

  it('a lock left by a killed server is taken over: the next server starts', async () => {
    const cwd = tempDir();
    const dataDir = path.join(cwd, 'data');
    const first = start(await serveArgs(dataDir), cwd);
    await first.started;
    const deadPid = first.child.pid;
    first.child.kill('SIGKILL');
    await first.stop();
    // The dead server's note of itself is still there: the lock looks held, but is not.
    expect(JSON.parse(readFileSync(path.join(dataDir, 'agentport.lock.json'), 'utf8')).pid).toBe(deadPid);

    const nextArgs = await serveArgs(dataDir);
    const next = start(nextArgs, cwd);
    await next.started;
    expect((await fetch(`http://127.0.0.1:${portOf(nextArgs)}/readyz`)).status).toBe(200);
    expect(JSON.parse(readFileSync(path.join(dataDir, 'agentport.lock.json'), 'utf8')).pid).toBe(next.child.pid);
  });

  describe('PostgreSQL storage', () => {
    const schema = `datadir_${randomBytes(4).toString('hex')}`;
    afterAll(async () => {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`drop schema if exists "${schema}" cascade`);
      await client.end();
    });

    it('replicas sharing one data directory both start (replicas are the design there)', async () => {
      const cwd = tempDir();
      const dataDir = path.join(cwd, 'data');
      writeFileSync(path.join(cwd, 'agentport.yaml'), JSON.stringify({ storage: { driver: 'postgres', url: PG_URL, schema }, agents: [{ id: 'echo', builtin: 'echo' }] }));
      const a = start(await serveArgs(dataDir, ['--config', 'agentport.yaml']), cwd);
      await a.started;
      const bArgs = await serveArgs(dataDir, ['--config', 'agentport.yaml']);
      const b = start(bArgs, cwd);
      await b.started;
      expect((await fetch(`http://127.0.0.1:${portOf(bArgs)}/readyz`)).status).toBe(200);
      expect(a.child.exitCode).toBeNull();
    });
  });
});
