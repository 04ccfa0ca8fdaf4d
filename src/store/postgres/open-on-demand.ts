/**
 * openPostgresStore as the store's index offers it: the PostgreSQL store and its driver (`pg`) are
 * loaded when a PostgreSQL store is opened, not by every process that reaches the store's index
 * (issue 26, suite time: every `agentport serve` on SQLite, and every CLI command, paid for them).
 */
import type { PostgresStore, PostgresStoreOptions } from './postgres-store.js';

export async function openPostgresStore(opts: PostgresStoreOptions): Promise<PostgresStore> {
  const { openPostgresStore: open } = await import('./postgres-store.js');
  return open(opts);
}
