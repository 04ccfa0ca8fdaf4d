/**
 * Audit appends on SQLite: one synchronous better-sqlite3 transaction (nothing can interleave in
 * this process), begun IMMEDIATE so another process on the same file (the CLI next to a running
 * server) waits for the write lock before reading the last record rather than after.
 */
import type Sqlite from 'better-sqlite3';
import { chainRows } from '../audit-chain.js';
import type { AuditAppend } from '../audit-store.js';
import type { AuditAppender, AuditLogTable } from '../sql-audit-store.js';

const COLUMNS = ['seq', 'time', 'replica', 'action', 'outcome', 'actor', 'actor_client', 'target', 'client_address', 'user_agent', 'request_id', 'details', 'prev_hash', 'hash'] as const;

export function sqliteAuditAppender(raw: Sqlite.Database): AuditAppender {
  // Prepared on first use: the table exists only once the store has migrated.
  let append: ((records: readonly AuditAppend[]) => AuditLogTable[]) | undefined;
  const prepare = () => {
    const last = raw.prepare<[], { seq: number; hash: string }>('select seq, hash from audit_log order by seq desc limit 1');
    const insert = raw.prepare(`insert into audit_log (${COLUMNS.join(', ')}) values (${COLUMNS.map(() => '?').join(', ')})`);
    const tx = raw.transaction((records: readonly AuditAppend[]) => {
      const rows = chainRows(last.get(), records);
      for (const r of rows) insert.run(COLUMNS.map((c) => r[c]));
      return rows;
    });
    return (records: readonly AuditAppend[]) => tx.immediate(records);
  };
  return async (records) => {
    // Only a Kysely transaction (a migration) can be open here; joining it would be wrong.
    if (raw.inTransaction) throw new Error('sqlite store: audit append while a migration is running');
    append ??= prepare();
    return append(records);
  };
}
