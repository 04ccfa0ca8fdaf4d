/**
 * The SQLite store's worker threads in a process started with `node --input-type=module -e …`
 * (a one-off script, or a tool that evaluates its program): a worker inherits the process's Node
 * options, and `--input-type` makes Node refuse to start it (ERR_INPUT_TYPE_NOT_ALLOWED), so the
 * commit and checkpoint threads stopped at once and the store fell back, saying so on stderr.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withoutInputType } from '../../src/config/worker-module.js';
import { ROOT, requireBuilt } from '../support/fresh-build.js';

const dir = mkdtempSync(path.join(tmpdir(), 'agentport-eval-threads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
requireBuilt('dist/store/sqlite/sqlite-store.js');

let runs = 0;
/** The program below run by `node <options> …`: what it printed, its stderr and its status. */
function storeProgram(options: string[], asFile: boolean): { printed: unknown; stderr: string; status: number | null } {
  const store = JSON.stringify(path.join(ROOT, 'dist/store/sqlite/sqlite-store.js'));
  const file = JSON.stringify(path.join(dir, `agentport-${++runs}.db`));
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
  const script = path.join(dir, `program-${runs}.mjs`);
  if (asFile) writeFileSync(script, program);
  const args = asFile ? [...options, script] : [...options, '--input-type=module', '-e', program];
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 20_000 });
  let printed: unknown = result.stdout;
  try {
    printed = JSON.parse(result.stdout);
  } catch {
    // left as text: the comparison below shows it
  }
  return { printed, stderr: result.stderr, status: result.status };
}

const healthy = { printed: { onThread: true, version: 1, failure: null, stopped: [] }, stderr: '', status: 0 };

describe("the store's threads whatever the process's Node options", () => {
  it('under node --input-type=module -e: a task committed on the commit thread, no thread stopped', () => {
    expect(storeProgram([], false)).toEqual(healthy);
  });

  it('under -e with a V8 option Node refuses to pass to a thread (--max-semi-space-size)', () => {
    expect(storeProgram(['--max-semi-space-size=32'], false)).toEqual(healthy);
  });

  it('in a script file with that V8 option and a preload: the threads inherit both, as before', () => {
    // The preload notes each worker thread it runs in: inherited options reach the threads.
    const preload = path.join(dir, 'note-threads.cjs');
    const notes = path.join(dir, 'threads.txt');
    writeFileSync(preload, `if (!require('node:worker_threads').isMainThread) require('node:fs').appendFileSync(${JSON.stringify(notes)}, 'thread\\n');`);
    expect(storeProgram(['--max-semi-space-size=32', '--require', preload], true)).toEqual(healthy);
    // the commit thread and the checkpointer thread
    expect(readFileSync(notes, 'utf8')).toBe('thread\nthread\n');
  });
});

describe('withoutInputType', () => {
  it('drops --input-type in both spellings and keeps every other option in order', () => {
    expect(withoutInputType(['--max-old-space-size=64', '--input-type=module', '--enable-source-maps', '--input-type', 'commonjs', '--trace-warnings'])).toEqual([
      '--max-old-space-size=64',
      '--enable-source-maps',
      '--trace-warnings',
    ]);
    expect(withoutInputType([])).toEqual([]);
  });
});
