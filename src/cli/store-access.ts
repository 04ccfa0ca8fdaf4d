/**
 * How the store-touching commands (`db`, `keys`, `users`, `clients`) find and open the database:
 * the config file's storage section, or `--storage` in its place.
 */
import type { Command } from 'commander';
import { ConfigError, loadConfig, parseConfig, type StorageConfig } from '../config/index.js';
import type { SqliteStore, PostgresStore } from '../store/index.js';
import type { CliIO } from './io.js';

export interface StoreOptions {
  config?: string;
  storage?: string;
}

export type OpenedStore = SqliteStore | PostgresStore;

/** The `--config` / `--storage` options, and the command's help after them. */
export function storeOptions(cmd: Command, help: string): Command {
  return cmd
    .option('-c, --config <file>', 'config file (default: $AGENTPORT_CONFIG, else ./agentport.yaml if present)')
    .option('--storage <url>', "sqlite:<path> or postgres://… instead of the config file's storage section")
    .addHelpText('after', help);
}

/** The storage section to use, or undefined after reporting a configuration error (exit 2). */
export function resolveStorage(options: StoreOptions, io: CliIO): StorageConfig | undefined {
  try {
    if (options.storage !== undefined) {
      // Validated like the short form in a file, with paths relative to the current directory.
      return parseConfig({ storage: options.storage }, { env: io.env, cwd: io.cwd() }).storage;
    }
    return loadConfig({ ...(options.config === undefined ? {} : { file: options.config }), env: io.env, cwd: io.cwd() }).storage;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const from = options.storage !== undefined ? ' (from --storage)' : '';
    io.stderr(`${error.message}${from}\n\nFix the file or run with --help.\n`);
    io.exit(2);
    return undefined;
  }
}

// Imported on use, so --help works without loading the database drivers.
export async function openStore(storage: StorageConfig): Promise<OpenedStore> {
  const { openSqliteStore, openPostgresStore } = await import('../store/index.js');
  if (storage.driver === 'sqlite') {
    // A short-lived process: no checkpoint thread, SQLite checkpoints on its own.
    return openSqliteStore({ file: storage.file, synchronous: storage.synchronous, checkpointThread: false });
  }
  return openPostgresStore({ connectionString: storage.url, schema: storage.schema, maxConnections: 2, connectionTimeoutMs: 5000 });
}

/**
 * Opens the store with its schema current (as `serve` would: SQLite, or PostgreSQL with
 * `storage.migrate`, is migrated; otherwise a schema that is not current is an error), runs
 * `work`, closes it; exits with work's code, or 1 on a database error.
 */
export async function withCurrentStore(options: StoreOptions, io: CliIO, work: (store: OpenedStore) => Promise<number>): Promise<void> {
  const storage = resolveStorage(options, io);
  if (!storage) return;
  let store: OpenedStore | undefined;
  let code: number;
  try {
    store = await openStore(storage);
    if (storage.driver === 'sqlite' || storage.migrate) await store.applyMigrations();
    else {
      const status = await store.migrationStatus();
      if (status.unknown.length || status.pending.length) {
        throw new Error(`${store.location}: the database schema is not current; run agentport db migrate first`);
      }
    }
    code = await work(store);
  } catch (error) {
    io.stderr(`agentport: ${error instanceof Error ? error.message : String(error)}\n`);
    code = 1;
  } finally {
    await store?.close().catch(() => {});
  }
  if (code !== 0) io.exit(code);
}
