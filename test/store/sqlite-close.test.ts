/**
 * Closing the SQLite store resolves even when nothing else keeps the process alive: its WAL
 * checkpointer thread is unref'd, and close() waited for that thread's exit while the event loop
 * could empty first. `agentport serve` then ended on SIGTERM without finishing its shutdown (no
 * "Stopped.", exit code 0 by accident); a script awaiting close() died with code 13 (unsettled
 * top-level await). Run in a plain Node process, since the test runner's own handles hide it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { requireBuilt } from '../support/fresh-build.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
requireBuilt('dist/store/sqlite/checkpoint-worker.js', 'dist/store/index.js');

describe('SqliteStore.close (built store, plain Node process)', () => {
  it('resolves, and the process ends normally after it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'agentport-close-'));
    try {
      const script = `
        import { openSqliteStore } from ${JSON.stringify(path.join(root, 'dist/store/index.js'))};
        const store = await openSqliteStore({ file: ${JSON.stringify(path.join(dir, 'a.db'))}, synchronous: 'normal' });
        await store.migrate();
        await store.close();
        console.log('closed');
      `;
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe('closed');
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
