/**
 * The WAL checkpointer thread is unref'd (it must never keep a process alive), yet its stop() is
 * awaited when the store closes. Both ways that wait could never end are pinned here: an event
 * loop with nothing else on it (a start that failed after closing its listeners: Node ended the
 * process with status 13, printing nothing), and a thread that had already died.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { requireBuilt } from '../support/fresh-build.js';
import { WalCheckpointer } from '../../src/store/sqlite/checkpointer.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const builtCheckpointer = path.join(root, 'dist/store/sqlite/checkpointer.js');
requireBuilt('dist/store/sqlite/checkpointer.js');

describe('WalCheckpointer.stop', () => {
  it('settles in a process with nothing else on its event loop (was: exit 13, nothing printed)', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'agentport-ckpt-')), 'agentport.db');
    const program = [
      `import { WalCheckpointer } from ${JSON.stringify(builtCheckpointer)};`,
      `const checkpointer = WalCheckpointer.start(${JSON.stringify(file)});`,
      'await checkpointer.stop();',
      "process.stdout.write('stopped');",
    ].join('\n');
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', program], { encoding: 'utf8', timeout: 20_000 });
    expect(result.stdout).toBe('stopped');
    expect(result.status).toBe(0);
  });

  it('settles when the thread had already ended (it could not open the database)', async () => {
    const missingDir = path.join(mkdtempSync(path.join(tmpdir(), 'agentport-ckpt-')), 'no-such-dir', 'agentport.db');
    const checkpointer = WalCheckpointer.start(missingDir);
    expect(checkpointer).toBeDefined();
    // The thread has ended on its own, its 'exit' emitted, before stop() is called: waited for,
    // where a fixed 1.5 s pause only hoped so. This listener comes after the checkpointer's own,
    // so when it runs the checkpointer has seen the exit too (onStopped fires earlier, on 'error').
    // biome-ignore lint/complexity/useLiteralKeys: `worker` is private; an index is how TypeScript lets a test read it
    const worker = checkpointer!['worker'];
    const ended = await Promise.race([new Promise((resolve) => worker.once('exit', () => resolve('exited'))), new Promise((resolve) => setTimeout(resolve, 10_000, 'still running'))]);
    expect(ended).toBe('exited');
    await expect(Promise.race([checkpointer!.stop().then(() => 'stopped'), new Promise((resolve) => setTimeout(resolve, 5_000, 'still waiting'))])).resolves.toBe('stopped');
  });
});
