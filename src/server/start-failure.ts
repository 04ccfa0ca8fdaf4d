/**
 * Why a server could not start, in words an operator can act on: the thing that failed, the cause,
 * and the fix. startServer throws nothing else; `agentport serve` prints it and exits with its code
 * (docs/cli.md, "Start-up failures and exit codes").
 */
import { ConfigError, type Config } from '../config/index.js';
import { AgentCardSpecError } from '../protocol/a2a/card/build-card.js';
import { InsecureAuthModeError } from './auth-mode.js';
// The error's own file: the store's index would load SQLite and the query builder into every CLI command.
import { DataDirLockedError } from '../store/sqlite/data-dir-locked-error.js';

/** `configuration`: fixed in the config file, the flags or what they name (exit 2); else exit 1. */
export type StartFailureKind = 'configuration' | 'environment';

export class StartFailure extends Error {
  override readonly name = 'StartFailure';

  constructor(
    /** what failed, named so it can be found: "the HTTP port 8080 on 127.0.0.1" */
    readonly subject: string,
    /** what is wrong with it */
    readonly problem: string,
    /** what to do about it */
    readonly fix: string,
    readonly kind: StartFailureKind,
    options?: { cause?: unknown },
  ) {
    super(`${subject} ${problem}; ${fix}`, options);
  }

  get exitCode(): 1 | 2 {
    return this.kind === 'configuration' ? 2 : 1;
  }
}

/** A listener that could not bind: which one, on which address, and the flag that moves it. */
export function listenFailure(listener: 'HTTP' | 'gRPC' | 'HTTP or gRPC' | 'metrics', host: string, port: number, error: unknown): StartFailure {
  const subject = `the ${listener} port ${port} on ${host}`;
  const flag = listener === 'HTTP' ? '--port (server.port)' : listener === 'gRPC' ? '--grpc-port (server.grpc.port)' : listener === 'metrics' ? 'metrics.listen' : '--port / --grpc-port';
  const text = errorText(error);
  if (/EADDRINUSE/.test(text) || errnoCode(error) === 'EADDRINUSE') {
    return new StartFailure(subject, 'is already in use by another process', `stop that process, or choose another port with ${flag}; 0 picks any free port`, 'environment', { cause: error });
  }
  if (/EACCES/.test(text) || errnoCode(error) === 'EACCES') {
    return new StartFailure(subject, 'may not be opened by this user (ports below 1024 need privileges)', `choose a port from 1024 up with ${flag}`, 'environment', { cause: error });
  }
  if (/EADDRNOTAVAIL|ENOTFOUND|EAI_AGAIN/.test(text) || ['EADDRNOTAVAIL', 'ENOTFOUND'].includes(errnoCode(error) ?? '')) {
    return new StartFailure(`the ${listener} address ${host}`, 'is not an address of this machine', `listen on one of its addresses (--host / server.host; 127.0.0.1 or 0.0.0.0)`, 'configuration', { cause: error });
  }
  return new StartFailure(subject, `could not be opened (${oneLine(text)})`, `check the address, or choose another port with ${flag}`, 'environment', { cause: error });
}

/** SQLite result codes (better-sqlite3 puts them on `code`) that say what is wrong with the file. */
function sqliteFailure(file: string, error: unknown): StartFailure | undefined {
  const code = errnoCode(error);
  if (!code?.startsWith('SQLITE_')) return undefined;
  const subject = `the database ${file}`;
  const detail = `SQLite: ${oneLine(errorText(error))}`;
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return new StartFailure(
      subject,
      `is damaged and cannot be read (${detail})`,
      `restore it from a backup, or move it aside (with its -wal and -shm files) to start with an empty database; \`sqlite3 ${file} .recover\` may salvage its rows`,
      'environment',
      { cause: error },
    );
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new StartFailure(subject, `is locked by another process (${detail})`, 'stop the other Agentport (or program) using it, or give this one its own --data-dir', 'environment', { cause: error });
  }
  if (code === 'SQLITE_FULL') {
    return new StartFailure(subject, `cannot grow: the disk is full (${detail})`, 'free space on its file system, or move --data-dir to one with room', 'environment', { cause: error });
  }
  if (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_PERM')) {
    return new StartFailure(subject, `cannot be opened for writing (${detail})`, 'make the file and its directory writable by this user, or choose another --data-dir', 'environment', { cause: error });
  }
  return new StartFailure(subject, `could not be used (${detail})`, 'check the file and its file system; restore it from a backup if it is damaged', 'environment', { cause: error });
}

const FILE_PROBLEMS: Record<string, { problem: string; fix: string }> = {
  EACCES: { problem: 'is not writable by this user (permission denied)', fix: 'make it writable by this user, or choose another --data-dir (server.dataDir)' },
  EPERM: { problem: 'is not writable by this user (operation not permitted)', fix: 'make it writable by this user, or choose another --data-dir (server.dataDir)' },
  EROFS: { problem: 'is on a read-only file system', fix: 'choose a --data-dir (server.dataDir) on a writable file system' },
  ENOSPC: { problem: 'has no space left on its device', fix: 'free space on its file system, or choose another --data-dir (server.dataDir)' },
  EDQUOT: { problem: "is over this user's disk quota", fix: 'free space within the quota, or choose another --data-dir (server.dataDir)' },
  ENOTDIR: { problem: 'is not a directory (a part of the path is a file)', fix: 'choose another --data-dir (server.dataDir), or move the file away' },
  EEXIST: { problem: 'exists as a file, not a directory', fix: 'choose another --data-dir (server.dataDir), or move the file away' },
  ENOENT: { problem: 'cannot be created', fix: 'create it, or choose another --data-dir (server.dataDir)' },
};

/** The data directory (or the database's own directory) could not be created or written. */
export function directoryFailure(what: string, dir: string, error: unknown): StartFailure {
  const e = error as NodeJS.ErrnoException | undefined;
  const known = e?.code ? FILE_PROBLEMS[e.code] : undefined;
  // The refusing directory may be a parent of one still to be created.
  const where = typeof e?.path === 'string' && e.path !== dir ? `${e.path}: ` : '';
  const problem = known ? `${known.problem} (${where}${e!.code} during ${e!.syscall ?? 'a file operation'})` : `cannot be written (${where}${oneLine(errorText(error))})`;
  return new StartFailure(`${what} ${dir}`, problem, known?.fix ?? 'make it writable by this user, or choose another --data-dir (server.dataDir)', 'environment', { cause: error });
}

/** A file-system error on a path of ours (data directory, database, keys). */
function fileFailure(error: unknown): StartFailure | undefined {
  const e = error as NodeJS.ErrnoException | undefined;
  const known = e?.code ? FILE_PROBLEMS[e.code] : undefined;
  if (!known || typeof e?.path !== 'string') return undefined;
  return new StartFailure(e.path, `${known.problem} (${e.code} during ${e.syscall ?? 'a file operation'})`, known.fix, 'environment', { cause: error });
}

/**
 * Every error startServer lets out, as a StartFailure: steps that know their context throw one
 * themselves (listeners, agents); the rest are recognised here by their identity.
 */
export function toStartFailure(error: unknown, config: Config): StartFailure {
  if (error instanceof StartFailure) return error;
  if (error instanceof InsecureAuthModeError) {
    return new StartFailure(error.detail.subject ?? 'auth.mode none (--auth none)', error.detail.problem, error.detail.fix, 'configuration', { cause: error });
  }
  if (error instanceof ConfigError) {
    return new StartFailure(`the configuration${config.file ? ` ${config.file}` : ''}`, `is invalid:\n${error.message}`, 'fix the keys named above, or run agentport serve --help', 'configuration', { cause: error });
  }
  if (error instanceof DataDirLockedError) {
    const by = error.holder ? `another Agentport (pid ${error.holder.pid}, started ${error.holder.startedAt})` : 'another Agentport that is still starting';
    return new StartFailure(`the data directory ${error.dir}`, `is in use by ${by}`, 'stop that server first, or give this one its own --data-dir (server.dataDir)', 'environment', { cause: error });
  }
  if (error instanceof AgentCardSpecError) {
    return new StartFailure('an agent card', oneLine(error.message), "set the field in the agent's card, or under agents[].card in the config", 'configuration', { cause: error });
  }
  const code = errnoCode(error);
  if (code === 'EADDRINUSE' || (code === 'EACCES' && typeof (error as { port?: unknown }).port === 'number')) {
    // A listen error that no step named (the listener is unknown here): its address says which.
    const e = error as { address?: string; port?: number };
    return listenFailure('HTTP or gRPC', e.address ?? config.server.host, e.port ?? config.server.port, error);
  }
  const storage = config.storage.driver === 'sqlite' ? sqliteFailure(config.storage.file, error) : undefined;
  return (
    storage ??
    fileFailure(error) ??
    new StartFailure('the server', `could not start: ${oneLine(errorText(error))}`, 'act on the cause above; --log-level debug logs the details (report it if it looks like a bug in Agentport)', 'environment', {
      cause: error,
    })
  );
}

export function errnoCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Messages from libraries span lines (grpc-js lists every address); one line reads better here. */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
