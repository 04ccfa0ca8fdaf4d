/**
 * The store contract on SQLite files, for the test files that run it (sqlite.test.ts: task commits
 * on the event loop; sqlite-contract-commit-thread.test.ts: on the commit thread, ADR 0062). One
 * file per variant so that `unit`'s three workers run them side by side: together, in one file,
 * they were the project's longest file by far (240 s of a 375 s run at load 10, issue 26).
 * Everything is made per call, nothing at module level: `unit` shares its worker processes and
 * their loaded modules between files (--no-isolate).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterAll } from 'vitest';
import { openSqliteStore } from '../../src/store/index.js';
import { sqliteTemplate } from '../support/store-templates.js';
import { describeStoreContract } from './store-contract.js';

/** The store contract on a file, its task commits on the event loop or on the commit thread (ADR 0062). */
export function describeSqliteFileContract(name: string, commitThread: boolean): void {
  const dir = mkdtempSync(join(tmpdir(), 'agentport-store-'));
  let n = 0;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const copyMigrated = sqliteTemplate(dir);
  /** the file of the store the contract opened last: its peer and raw SQL go there */
  let current = '';
  const open = (file: string) => openSqliteStore({ file, commitThread });
  describeStoreContract(
    name,
    () => {
      current = join(dir, `store-${n++}.db`);
      return open(current);
    },
    {
      openMigrated: async () => {
        current = join(dir, `store-${n++}.db`);
        await copyMigrated(current);
        return open(current);
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
