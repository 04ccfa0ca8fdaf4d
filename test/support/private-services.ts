/**
 * PostgreSQL and Redis instances private to one test file, on free loopback ports, that the test may
 * stop, crash and restart at will. The shared servers on 5432 and 6379 serve other suites at the same
 * time and must never be touched; fault tests use these instead.
 *
 * PostgreSQL keeps fsync on: the fault tests claim that nothing acknowledged is lost across a crash
 * of the database, which only means something with the durability settings of a real deployment.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { chown, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A port that is free now, chosen below the kernel's ephemeral range (32768+ on Linux): the
 * replicas and services started on it bind a second or more later, and meanwhile every test that
 * listens on port 0 gets an ephemeral port, so it can never take ours (a race seen in CI).
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if ((await canListen(port)) && reservePort(port)) return port;
  }
  throw new Error('no free port found between 20000 and 32000');
}

/**
 * Test files run in parallel processes: two of them could pick the same free port in the second
 * before either binds it. A port handed out is reserved for a while by a file created exclusively
 * in a directory all test processes share.
 */
const PORT_RESERVATIONS = path.join(tmpdir(), 'agentport-test-ports');
const RESERVATION_MS = 10 * 60_000;

function reservePort(port: number): boolean {
  const file = path.join(PORT_RESERVATIONS, String(port));
  try {
    mkdirSync(PORT_RESERVATIONS, { recursive: true });
    closeSync(openSync(file, 'wx'));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return true; // no shared directory: best effort
    try {
      if (Date.now() - statSync(file).mtimeMs < RESERVATION_MS) return false;
      utimesSync(file, new Date(), new Date());
      return true;
    } catch {
      return false;
    }
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Resolves when something accepts TCP connections on the port (or throws at the deadline). */
export async function waitForPort(port: number, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (open) return;
    await sleep(50);
  }
  throw new Error(`${what} not accepting connections on ${port} after ${timeoutMs} ms`);
}

// ---------------------------------------------------------------- PostgreSQL

function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) throw new Error(`${root} not found: the private PostgreSQL needs a server installation`);
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  if (!versions.length) throw new Error(`no ${root}/*/bin/initdb`);
  return path.join(root, versions[0]!, 'bin');
}

export interface PrivatePostgres {
  port: number;
  /** superuser `postgres`, database `postgres`, trust auth on loopback */
  url: string;
  dataDir: string;
  /** Starts the server (again) on the same port and data dir; resolves once it accepts connections. */
  start(): Promise<void>;
  /** `pg_ctl stop -m immediate`: no checkpoint, crash recovery on the next start (like a power cut). */
  crash(): Promise<void>;
  /** `pg_ctl stop -m fast`. */
  stop(): Promise<void>;
  /** The server log, for failure messages. */
  log(): Promise<string>;
  /** Stops the server and removes its directory. */
  destroy(): Promise<void>;
}

/**
 * A data directory as `initdb` made it, kept under the temp directory for this PostgreSQL
 * installation and these arguments, made by the first file that needs one; each private server
 * starts from a copy of it. initdb spent 2 s of CPU and up to 30 s of wall (its fsyncs, the
 * bootstrap) in every fault file's beforeAll on the loaded 2-core machine; the copy of its 39 MB
 * takes a fraction of that (docs/benchmarks.md, "suites37"). The copy is what initdb wrote, so the
 * server starts as on a fresh initdb; it keeps fsync on as before. Made in a directory of its own
 * and renamed into place, so a reader never sees a half-made one: two files that miss it at once
 * both run initdb and the second rename loses.
 */
async function initdbTemplate(bin: string, args: string[], asRoot: boolean, pgRun: (cmd: string, args: string[]) => Promise<unknown>): Promise<string> {
  const initdb = statSync(path.join(bin, 'initdb'));
  const key = createHash('sha256')
    .update(JSON.stringify([bin, initdb.size, initdb.mtimeMs, args, asRoot]))
    .digest('hex')
    .slice(0, 16);
  const home = path.join(tmpdir(), `agentport-pg-template-${key}`);
  const data = path.join(home, 'data');
  if (existsSync(path.join(data, 'PG_VERSION')) && existsSync(path.join(data, 'global', 'pg_control'))) return data;
  const making = await mkdtemp(path.join(tmpdir(), 'agentport-pg-template-new-'));
  try {
    if (asRoot) {
      const { stdout } = await run('id', ['-u', 'postgres']);
      const { stdout: gid } = await run('id', ['-g', 'postgres']);
      await chown(making, Number(stdout.trim()), Number(gid.trim()));
    }
    await pgRun('initdb', ['-D', path.join(making, 'data'), ...args]);
    try {
      await rename(making, home);
    } catch {
      // Another file made it first (ENOTEMPTY, EEXIST): use that one. One left incomplete (a temp
      // directory cleaner's work) is replaced.
      if (!existsSync(path.join(data, 'PG_VERSION')) || !existsSync(path.join(data, 'global', 'pg_control'))) {
        await rm(home, { recursive: true, force: true });
        await rename(making, home);
      }
    }
  } finally {
    await rm(making, { recursive: true, force: true });
  }
  return data;
}

/**
 * A copy of the initdb template (above) in a temp dir, and a postmaster started on it on a free
 * port. As root, initdb and the server run as the `postgres` OS user (PostgreSQL refuses to run as
 * root), with the directory chowned to it.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  const dir = await mkdtemp(path.join(tmpdir(), 'agentport-pg-'));
  const dataDir = path.join(dir, 'data');
  const logFile = path.join(dir, 'server.log');
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const pgRun = (cmd: string, args: string[], timeout = 60_000) => (asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args], { timeout }) : run(path.join(bin, cmd), args, { timeout }));

  const initdbArgs = ['-U', 'postgres', '--auth=trust', '--no-instructions', '-E', 'UTF8', '--locale=C.UTF-8'];
  const template = await initdbTemplate(bin, initdbArgs, asRoot, pgRun);
  // `cp -a` keeps the owner (postgres, when run as root) and the 0700 mode the server requires.
  await run('cp', ['-a', template, dataDir], { timeout: 60_000 });
  const port = await freePort();
  const options = [
    `-c port=${port}`,
    `-c listen_addresses=127.0.0.1`,
    // The socket in our own directory: never next to the shared server's in /var/run/postgresql.
    `-c unix_socket_directories=${dir}`,
    `-c max_connections=80`,
    `-c shared_buffers=32MB`,
    // Durability stays as in production (fsync, full_page_writes, synchronous_commit all default on).
  ].join(' ');

  const pg: PrivatePostgres = {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    dataDir,
    async start() {
      await pgRun('pg_ctl', ['start', '-w', '-t', '60', '-D', dataDir, '-l', logFile, '-o', options]);
      await waitForPort(port, 10_000, 'private PostgreSQL');
    },
    async crash() {
      await pgRun('pg_ctl', ['stop', '-w', '-D', dataDir, '-m', 'immediate']);
    },
    async stop() {
      await pgRun('pg_ctl', ['stop', '-w', '-D', dataDir, '-m', 'fast']);
    },
    async log() {
      return readFile(logFile, 'utf8').catch(() => '');
    },
    async destroy() {
      if (existsSync(path.join(dataDir, 'postmaster.pid'))) {
        await pgRun('pg_ctl', ['stop', '-w', '-D', dataDir, '-m', 'immediate']).catch(() => undefined);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
  await pg.start();
  return pg;
}

// ---------------------------------------------------------------- Redis

export interface PrivateRedis {
  port: number;
  url: string;
  /** Starts redis-server (again) on the same port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** SIGKILL: what a crash or an OOM kill looks like to clients. Data is gone (nothing is persisted). */
  kill(): Promise<void>;
  log(): string;
  destroy(): Promise<void>;
}

/** A redis-server child on a free port with persistence off (Agentport keeps nothing durable in Redis). */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let proc: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let out = '';
  const redis: PrivateRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      if (proc && proc.exitCode === null && proc.signalCode === null) throw new Error('private Redis already running');
      const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      proc = child;
      const keep = (b: Buffer) => (out = (out + b.toString('utf8')).slice(-10_000));
      child.stdout?.on('data', keep);
      child.stderr?.on('data', keep);
      exited = new Promise<void>((resolve) => {
        child.on('exit', () => resolve());
        child.on('error', (err) => (keep(Buffer.from(`spawn failed: ${err.message}\n`)), resolve()));
      });
      await waitForPort(port, 10_000, 'private Redis');
    },
    async kill() {
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGKILL');
      await exited;
    },
    log: () => out,
    async destroy() {
      await redis.kill();
    },
  };
  await redis.start();
  return redis;
}
