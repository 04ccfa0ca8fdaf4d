/**
 * Storage conditions the server must say out loud rather than suffer silently: a zero-byte
 * database file (started as a new, empty database: logged), and a disk that fills while it runs
 * (/readyz reports storage not writable, although reads, and so a ping, still work).
 *
 * The disk is a real one: a 8 MiB tmpfs mounted on the data directory in the child's own mount
 * namespace, filled from outside through /proc/<pid>/root.
 */
import { openSync, writeFileSync, writeSync, closeSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../support/private-services.js';
import { hasMountNamespace, startCli, tempDir, tinyFileSystem, type RunningCli } from './run-built-cli.js';

const running: RunningCli[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
});

/** One agent (echo), so that nothing else writes into the data directory. */
function echoOnly(cwd: string): string[] {
  writeFileSync(path.join(cwd, 'agentport.yaml'), 'agents:\n  - id: echo\n    builtin: echo\n');
  return ['--config', 'agentport.yaml'];
}

/** Writes zeros into `file` until the file system refuses with ENOSPC. */
function fillUntilFull(file: string): void {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
  } finally {
    closeSync(fd);
  }
}

/** The status and checks of /readyz (its measures are /readyz's own tests' business: test/server/readiness.test.ts). */
async function readyz(port: number): Promise<{ status: number; body: { status: string; checks: Record<string, string> } }> {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`);
  const { status, checks } = (await res.json()) as { status: string; checks: Record<string, string> };
  return { status: res.status, body: { status, checks } };
}

describe('agentport serve: storage conditions (built CLI, child process)', () => {
  it('a zero-byte database file starts as a new, empty database, and the log says so', async () => {
    const cwd = tempDir();
    const dataDir = path.join(cwd, 'data');
    await mkdir(dataDir);
    const file = path.join(dataDir, 'agentport.db');
    writeFileSync(file, '');
    const cli = startCli(['serve', ...echoOnly(cwd), '--port', '0', '--grpc-port', '0', '--data-dir', dataDir], { cwd });
    running.push(cli);
    await cli.started;
    await expect.poll(() => cli.stdout, { timeout: 5_000 }).toContain('the database file is empty (0 bytes): starting with a new, empty database in it');
    expect(cli.stdout).toContain(JSON.stringify(file));
    expect(await cli.stop()).toBe(0);
  });

  it('a database file with data in it starts without that warning', async () => {
    const cwd = tempDir();
    const dataDir = path.join(cwd, 'data');
    const args = ['serve', ...echoOnly(cwd), '--port', '0', '--grpc-port', '0', '--data-dir', dataDir];
    const first = startCli(args, { cwd });
    running.push(first);
    await first.started;
    expect(await first.stop()).toBe(0);
    const second = startCli(args, { cwd });
    running.push(second);
    await second.started;
    expect(second.stdout).not.toContain('the database file is empty');
  });

  it.skipIf(!hasMountNamespace)('/readyz reports storage not writable while the disk is full, and ready again once there is room', async () => {
    const cwd = tempDir();
    const dataDir = path.join(cwd, 'data');
    await mkdir(dataDir);
    const port = await freePort();
    const cli = startCli(['serve', ...echoOnly(cwd), '--port', String(port), '--grpc-port', '0', '--data-dir', dataDir], { cwd, prefix: tinyFileSystem(dataDir, '8m') });
    running.push(cli);
    await cli.started;
    expect(await readyz(port)).toEqual({ status: 200, body: { status: 'ready', checks: { storage: 'ok', bus: 'ok', push: 'ok' } } });

    // The child's view of its data directory: the tmpfs, which the test's own namespace lacks.
    const filler = path.join(`/proc/${cli.child.pid}/root`, dataDir, 'filler');
    fillUntilFull(filler);
    expect(await readyz(port)).toEqual({ status: 503, body: { status: 'unavailable', checks: { storage: 'not writable (disk full)', bus: 'ok', push: 'ok' } } });

    rmSync(filler);
    expect(await readyz(port)).toEqual({ status: 200, body: { status: 'ready', checks: { storage: 'ok', bus: 'ok', push: 'ok' } } });
    expect(await cli.stop()).toBe(0);
  });
});
