/**
 * `agentport db migrate` and `agentport db status`: the database schema, run by an operator (or a
 * deploy job) before replicas start with `storage.migrate: false`.
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import type { StorageConfig } from '../../config/index.js';
import type { CliIO } from '../io.js';
import { openStore, resolveStorage, type OpenedStore, type StoreOptions } from '../store-access.js';

type DbOptions = StoreOptions;

const DB_HELP = `
The database is the one the config file names (storage), or --storage, which replaces that
section: sqlite:<path> or a postgres:// URL (schema public; use a config file for another).

Examples:
  $ agentport db status --config agentport.yaml
  $ agentport db migrate --storage postgres://agentport@db.internal:5432/agentport
  $ agentport db migrate --storage sqlite:./.agentport/agentport.db
`;

export function registerDb(program: Command, io: CliIO): void {
  const db = program.command('db').description('database schema: apply migrations, show which are applied').addHelpText('after', DB_HELP);
  const common = (cmd: Command): Command =>
    cmd.option('-c, --config <file>', 'config file (default: $AGENTPORT_CONFIG, else ./agentport.yaml if present)').option('--storage <url>', "sqlite:<path> or postgres://… instead of the config file's storage section");

  common(db.command('migrate').description('apply pending migrations; prints what it applied'))
    .addHelpText('after', DB_HELP)
    .action(async (options: DbOptions) => {
      await withStore(options, io, async (store) => {
        const applied = await store.applyMigrations();
        for (const name of applied) io.stdout(`applied  ${name}\n`);
        io.stdout(applied.length === 0 ? `${store.location}: up to date\n` : `${store.location}: ${applied.length} migration${applied.length === 1 ? '' : 's'} applied, up to date\n`);
        return 0;
      });
    });

  common(db.command('status').description('list applied, pending and unknown migrations; exits 1 unless up to date'))
    .addHelpText('after', DB_HELP)
    .action(async (options: DbOptions) => {
      const storage = resolveStorage(options, io);
      if (!storage) return;
      if (storage.driver === 'sqlite' && storage.file !== ':memory:' && !existsSync(storage.file)) {
        // Opening it would create it; say what is there instead.
        io.stdout(`SQLite database ${storage.file} does not exist yet: every migration is pending (run agentport db migrate)\n`);
        io.exit(1);
        return;
      }
      await withStore(
        options,
        io,
        async (store) => {
          const s = await store.migrationStatus();
          for (const name of s.applied) io.stdout(`${s.unknown.includes(name) ? 'unknown' : 'applied'}  ${name}\n`);
          for (const name of s.pending) io.stdout(`pending  ${name}\n`);
          const counts = `${s.applied.length - s.unknown.length} applied, ${s.pending.length} pending, ${s.unknown.length} unknown`;
          if (s.unknown.length > 0) {
            io.stdout(`${store.location}: ${counts}: the database schema is newer than this Agentport; upgrade Agentport\n`);
            return 1;
          }
          if (s.pending.length > 0) {
            io.stdout(`${store.location}: ${counts}: run agentport db migrate\n`);
            return 1;
          }
          io.stdout(`${store.location}: ${counts}: up to date\n`);
          return 0;
        },
        storage,
      );
    });
}

/** Opens the store, checks it answers, runs `work`, closes it; exits with work's code, or 1 on a database error. */
async function withStore(options: DbOptions, io: CliIO, work: (store: OpenedStore) => Promise<number>, resolved?: StorageConfig): Promise<void> {
  const storage = resolved ?? resolveStorage(options, io);
  if (!storage) return;
  let store: OpenedStore | undefined;
  let code: number;
  try {
    store = await openStore(storage);
    await store.ping();
    code = await work(store);
  } catch (error) {
    io.stderr(`agentport: ${error instanceof Error ? error.message : String(error)}\n`);
    code = 1;
  } finally {
    await store?.close().catch(() => {});
  }
  if (code !== 0) io.exit(code);
}
