/**
 * The store contract on SQLite files, for the test files that run it (sqlite.test.ts: task commits
 * on the event loop; sqlite-contract-commit-thread.test.ts: on the commit thread, ADR 0062). One
 * file per variant so that `unit`'s three workers run them side by side: together, in one file,
 * they were the project's longest file by far (240 s of a 375 s run at load 10, issue 26).
 * Everything is made per call, nothing at module level: `unit` shares its worker processes and
 * their loaded modules between files (--no-isolate).
 *
 * A test's store is kept for the next test, its file put back to the migrated template's rows
 * (test/support/sqlite-reuse.ts), rather than closed and a new one opened on a new copy: its two
 * threads' starts were ~0.2–0.4 s of CPU a test (issue 26).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterAll } from 'vitest';
import { openSqliteStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/store.js';
import type { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { emptyForNextTest } from '../support/sqlite-reuse.js';
import { sqliteTemplateFile } from '../support/store-templates.js';
import { describeStoreContract } from './store-contract.js';

/** The store contract on a file, its task commits on the event loop or on the commit thread (ADR 0062). */
export function describeSqliteFileContract(name: string, commitThread: boolean): void {
  const dir = mkdtempSync(join(tmpdir(), 'agentport-store-'));
  let n = 0;
  const template = sqliteTemplateFile(dir);
  /** the file of the store the contract opened last: its peer and raw SQL go there */
  let current = '';
  /** the files of the stores openMigrated gave out, until they are released */
  const files = new Map<Store, string>();
  /** the store the last test released, emptied, for the next one */
  let kept: { store: SqliteStore; file: string } | undefined;
  afterAll(async () => {
    await kept?.store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const open = (file: string) => openSqliteStore({ file, commitThread });
  describeStoreContract(
    name,
    () => {
      current = join(dir, `store-${n++}.db`);
      return open(current);
    },
    {
      openMigrated: async () => {
        const reused = kept;
        kept = undefined;
        if (reused) {
          current = reused.file;
          files.set(reused.store, reused.file);
          return reused.store;
        }
        current = join(dir, `store-${n++}.db`);
        await template.copy(current);
        const store = await open(current);
        files.set(store, current);
        return store;
      },
      release: async (store) => {
        // Released already and kept (the contract's beforeEach failed before the next store came).
        if (kept?.store === store) return;
        const file = files.get(store);
        files.delete(store);
        if (file !== undefined && emptyForNextTest(store as SqliteStore, file, await template.file())) kept = { store: store as SqliteStore, file };
        else await store.close();
      },
      openPeer: () => open(current),
      exec: async (text) => {
        const raw = new Sqlite(current);
        try {
          raw.exec(text);
        } finally {
          raw.close();
        }
      },
    },
  );
}
