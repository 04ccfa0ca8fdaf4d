/**
 * The checks a start makes before it opens anything, in a module that imports none of the server
 * (issue 26): `serve` runs them before it imports ./start.js (its store drivers, HTTP, gRPC and
 * MCP stacks: ~0.8 s of CPU on the bench VM), so a start that cannot succeed (a refused
 * configuration, a taken port, a data directory that cannot be written, a broken agent module)
 * fails without paying for that import or opening the store. startServer runs checkBeforeOpening
 * itself too (it is also called without the CLI); after serve's preflight it keeps the
 * configuration checks and their warnings and skips the probes (ports, directories) just made.
 */
import path from 'node:path';
import type { Config } from '../config/index.js';
import { loadAgentDefinition } from '../agents/load-agent.js';
import { registerAgent } from './agent-cards.js';
import { agentLoadFailure } from './agent-load-failure.js';
import { checkAuthMode, checkTokenAutoApprove } from './auth-mode.js';
import { checkPortsFree } from './port-preflight.js';
import { directoryFailure, StartFailure } from './start-failure.js';
import { ensureWritableDir } from './storage-writable.js';

/**
 * Configuration checks first: a refused configuration opens nothing. Then every taken port at
 * once (port-preflight.ts; `singlePort`: one taken port too) and the directories the store writes.
 * Returns the database's directory when it is not the data directory (readiness checks it too).
 */
export async function checkBeforeOpening(initial: Config, log: { warn(msg: string): void }, opts: { singlePort?: boolean; probed?: boolean } = {}): Promise<{ dbDir: string | undefined }> {
  checkAuthMode(initial, log);
  checkTokenAutoApprove(initial, log);
  if (initial.bus.driver === 'redis' && initial.storage.driver !== 'postgres') {
    throw new StartFailure('bus (redis)', 'joins replicas that share one PostgreSQL store, but storage is not PostgreSQL', 'set `storage:` to a postgres:// URL (or remove `bus:` for a single server)', 'configuration');
  }
  const dataDir = initial.server.dataDir;
  const dbDir = initial.storage.driver === 'sqlite' && initial.storage.file !== ':memory:' ? path.dirname(initial.storage.file) : undefined;
  // `probed`: preflightStart ran the probes below moments ago (agentport serve); not twice.
  if (opts.probed) return { dbDir };
  await checkPortsFree(initial, { single: opts.singlePort });
  // Named here, by path: SQLite would open a database it cannot write read-only, and fail later.
  await ensureWritableDir(dataDir).catch((error: unknown) => {
    throw directoryFailure('the data directory', dataDir, error);
  });
  if (dbDir && dbDir !== path.resolve(dataDir)) {
    await ensureWritableDir(dbDir).catch((error: unknown) => {
      throw directoryFailure("the database's directory", dbDir, error);
    });
  }
  return { dbDir };
}

/**
 * A module agent in plain JavaScript: imported here, its import is cached by Node's loader, so the
 * server's own load evaluates nothing twice. TypeScript goes through tsx, whose tsImport evaluates
 * the module again on every call, so those are left to the server.
 */
const PLAIN_JAVASCRIPT = /\.[cm]?js$/;

/** The server's own warnings (auth off, auto-approve) are logged by the server's start, not twice. */
const SILENT = { warn() {} };

/**
 * Throws the StartFailure the server would throw for what checkBeforeOpening refuses (one taken
 * port included), a data directory another server holds, or a plain JavaScript agent module that
 * cannot be imported, exports no agent or an agent whose card is refused.
 */
export async function preflightStart(config: Config): Promise<void> {
  await checkBeforeOpening(config, SILENT, { singlePort: true });
  for (const [index, agent] of config.agents.entries()) {
    if (agent.module === undefined || !PLAIN_JAVASCRIPT.test(agent.module)) continue;
    const fail = (error: unknown): never => {
      throw agentLoadFailure(agent, index, error);
    };
    const def = await loadAgentDefinition(agent, config).catch(fail);
    // Its card built as the server will (unsigned: no keys yet), so a card the spec refuses
    // (no name, …) is named here too; the server builds it again, with the bound ports.
    await registerAgent(config, agent, def, undefined).catch(fail);
  }
  // Another server on this embedded database: refused (naming it) by taking the lock and giving it
  // back at once; openStorage takes it for good, and is refused there if another took it between.
  // Last, and imported here: it is the one check that loads a driver (better-sqlite3 holds the lock).
  if (config.storage.driver === 'sqlite' && config.storage.file !== ':memory:') {
    const { lockDataDir } = await import('../store/sqlite/data-dir-lock.js');
    lockDataDir(config.server.dataDir).release();
  }
}
