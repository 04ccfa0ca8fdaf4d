/**
 * Opens the configured store for a start: SQLite checked for damage and migrated, PostgreSQL
 * reached and migrated (or its schema checked against this build when `storage.migrate` is off).
 * Every refusal is a StartFailure naming the cause.
 */
import { stat } from 'node:fs/promises';
import { redactUrl, type Config } from '../config/index.js';
import { openPostgresStore, openSqliteStore, type Store } from '../store/index.js';
import { StartFailure } from './start-failure.js';

export async function openStore(config: Config, log: { info(o: object, m?: string): void; warn(o: object, m?: string): void; error(o: object, m?: string): void }): Promise<Store> {
  const s = config.storage;
  if (s.driver === 'sqlite') {
    if (s.file !== ':memory:' && (await stat(s.file).catch(() => undefined))?.size === 0) {
      log.warn({ file: s.file }, 'the database file is empty (0 bytes): starting with a new, empty database in it');
    }
    // A thread of the store that ends on its own is named in the log at once; /readyz then says what it costs.
    const onThreadStopped = (err: Error) => log.error({ err }, err.message);
    const store = await openSqliteStore({ file: s.file, synchronous: s.synchronous, commitThread: s.commitThread, onThreadStopped });
    // A damaged page inside a table or an index leaves the file openable and pingable, and fails
    // the writes that touch it (issue 25 D7b): checked before anything is written.
    try {
      const problem = s.file === ':memory:' ? undefined : store.quickCheck();
      if (problem) throw Object.assign(new Error(`quick_check: ${problem}`), { code: 'SQLITE_CORRUPT' });
    } catch (err) {
      await store.close().catch(() => {});
      throw err;
    }
    await store.migrate();
    // One process owns an embedded database: leases left by a killed predecessor are void.
    await store.releaseOutboxLeases();
    return store;
  }
  const store = await openPostgresStore({ connectionString: s.url, schema: s.schema, maxConnections: s.maxConnections, connectionTimeoutMs: 5_000 });
  try {
    await store.ping();
  } catch (err) {
    await store.close().catch(() => {});
    throw new StartFailure(`storage: PostgreSQL at ${redactUrl(s.url, 'the configured URL')}`, `is unreachable (${(err as Error).message})`, 'check the URL and that the server is up', 'environment', { cause: err });
  }
  try {
    if (s.migrate) {
      await store.migrate();
    } else {
      const status = await store.migrationStatus();
      if (status.unknown.length) {
        throw new StartFailure(`storage: the database schema ${s.schema}`, `is newer than this Agentport (unknown migrations: ${status.unknown.join(', ')})`, 'upgrade Agentport', 'environment');
      }
      if (status.pending.length) {
        throw new StartFailure(
          `storage: the database schema ${s.schema}`,
          `is behind this Agentport (pending migrations: ${status.pending.join(', ')})`,
          'run `agentport db migrate` first, or set storage.migrate: true',
          'environment',
        );
      }
    }
  } catch (err) {
    await store.close().catch(() => {});
    throw err;
  }
  store.plannerStatistics.start();
  log.info({ schema: s.schema }, 'PostgreSQL store ready');
  return store;
}
