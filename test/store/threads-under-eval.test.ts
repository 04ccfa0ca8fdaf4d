/**
 * The SQLite store's worker threads in a process started with `node --input-type=module -e …`
 * (a one-off script, or a tool that evaluates its program): a worker inherits the process's Node
 * options, and `--input-type` makes Node refuse to start it (ERR_INPUT_TYPE_NOT_ALLOWED), so the
 * commit and checkpoint threads stopped at once and the store fell back, saying so on stderr.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { workerExecArgv } from '../../src/config/worker-module.js';
import { ROOT, requireBuilt } from '../support/fresh-build.js';

const dir = mkdtempSync(path.join(tmpdir(), 'agentport-eval-threads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
requireBuilt('dist/store/sqlite/sqlite-store.js');

describe("the store's threads under node --input-type=module -e", () => {
  it('commit a task on the commit thread and close with no thread stopped', () => {
    const store = JSON.stringify(path.join(ROOT, 'dist/store/sqlite/sqlite-store.js'));
    const file = JSON.stringify(path.join(dir, 'agentport.db'));
    const program = `
      import { openSqliteStore } from ${store};
      const stopped = [];
      const s = await openSqliteStore({ file: ${file}, commitThread: true, onThreadStopped: (err) => stopped.push(err.message) });
      await s.migrate();
      const task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_SUBMITTED' } };
      await s.commit([{ agentId: 'a', owner: 'o', task, expectedVersion: 0, seq: 1, events: [{ taskId: 't1', seq: 1, event: { task }, createdAt: 1 }], outbox: [], createdAt: 1 }]);
      const stored = await s.getTask('a', 't1');
      const failure = s.storageFailure() ?? null;
      await s.close();
      process.stdout.write(JSON.stringify({ onThread: s.commitsOnThread, version: stored?.version, failure, stopped }));
    `;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', program], { encoding: 'utf8', timeout: 20_000 });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({ onThread: true, version: 1, failure: null, stopped: [] });
    expect(result.status).toBe(0);
  });
});

describe('workerExecArgv', () => {
  it('drops --input-type in both spellings and keeps every other option in order', () => {
    expect(workerExecArgv(['--max-old-space-size=64', '--input-type=module', '--enable-source-maps', '--input-type', 'commonjs', '--trace-warnings'])).toEqual([
      '--max-old-space-size=64',
      '--enable-source-maps',
      '--trace-warnings',
    ]);
    expect(workerExecArgv([])).toEqual([]);
  });
});
