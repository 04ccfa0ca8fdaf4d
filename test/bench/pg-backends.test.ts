import { spawn } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendPids, backendsCpuSeconds } from '../../bench/lib/pg-backends.mjs';

const url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const port = Number(new URL(url).port || 5432);

/** bench/pg-floor.js charges a server the CPU of the backends its own connections reach, and no other's. */
describe('bench/lib/pg-backends.mjs', () => {
  const admin = new pg.Client({ connectionString: url });
  const served = new pg.Client({ connectionString: url });
  beforeAll(async () => {
    await admin.connect();
    await served.connect();
  });
  afterAll(async () => {
    await served.end();
    await admin.end();
  });

  it("finds the backends serving this process's connections", async () => {
    const own = (await served.query('select pg_backend_pid() as pid')).rows[0].pid as number;
    const mine = (await admin.query('select pg_backend_pid() as pid')).rows[0].pid as number;
    const pids = await backendPids(admin, process.pid, port);
    expect(pids).toContain(own);
    expect(pids).toContain(mine);
    // and their CPU, which the queries above spent some of
    expect(backendsCpuSeconds(pids)).toBeGreaterThanOrEqual(0);
    expect(backendsCpuSeconds([])).toBe(0);
  });

  it("leaves out the backends of another process's connections", async () => {
    // a child holding a connection of its own until told to end it
    const child = spawn(
      process.execPath,
      [
        '-e',
        `const pg = require('pg'); const c = new pg.Client(${JSON.stringify(url)}); c.connect().then(() => c.query('select pg_backend_pid() as pid')).then((r) => { console.log(r.rows[0].pid); process.stdin.on('data', () => c.end().then(() => process.exit(0))); });`,
      ],
      { cwd: process.cwd(), stdio: ['pipe', 'pipe', 'inherit'] },
    );
    try {
      const theirs = await new Promise<number>((resolve) => child.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
      expect(await backendPids(admin, child.pid as number, port)).toEqual([theirs]);
      expect(await backendPids(admin, process.pid, port)).not.toContain(theirs);
    } finally {
      child.stdin.write('end\n');
      await new Promise((r) => child.once('exit', r));
    }
  });
});
