/**
 * A distributed Agentport deployment for tests: N replicas of the real CLI (`node bin/agentport.js
 * serve`) as child processes, each with its own data dir, HTTP and gRPC ports and replica id, all on
 * one PostgreSQL schema and one Redis prefix. Replicas can be killed (-9), stopped and restarted on
 * the same ports; their output is kept for failure messages.
 *
 * Replicas run from dist/: `npm run build` first.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { requireBuilt } from './fresh-build.js';
import { freePort, sleep } from './private-services.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/agentport.js');
const execFileAsync = promisify(execFile);
export const CLUSTER_AGENT = path.join(ROOT, 'test/fixtures/agents/cluster-agent.mjs');
export const CLUSTER_AGENT_RESUMABLE = path.join(ROOT, 'test/fixtures/agents/cluster-agent-resumable.mjs');

/** Builds dist/ when it is missing or older than src/ (the replicas run the build). */
export function ensureBuilt(): void {
  requireBuilt('dist/cli/main.js', 'dist/server/start.js');
}

/** A name unique to this run, usable as a PostgreSQL schema and a Redis prefix. */
export function uniqueName(base: string): string {
  return `${base}_${Date.now().toString(36)}_${process.pid}_${Math.random().toString(36).slice(2, 6)}`.toLowerCase();
}

/** Polls `probe` until it returns something other than undefined/false, or throws at the deadline. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  opts: {
    timeoutMs: number;
    intervalMs?: number;
    what: string;
    detail?: () => string | Promise<string>;
    /** errors from `probe` that end the wait at once (rethrown) */
    failFast?: (err: unknown) => boolean;
  },
): Promise<T> {
  const deadline = Date.now() + opts.timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      if (opts.failFast?.(err)) throw err;
      lastError = err;
    }
    if (Date.now() >= deadline) break;
    await sleep(opts.intervalMs ?? 50);
  }
  const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
  const detail = opts.detail ? `\n${await opts.detail()}` : '';
  throw new Error(`timed out after ${opts.timeoutMs} ms waiting for ${opts.what}${why}${detail}`);
}

// ---------------------------------------------------------------- the agent log

export interface AgentLogLine {
  event: 'start' | 'resumed' | 'step' | 'aborted' | 'done' | 'effect' | 'fenced';
  taskId: string;
  pid: number;
  replica: string | null;
  text: string;
  step?: number;
  at: number;
}

export function readAgentLog(file: string): AgentLogLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as AgentLogLine);
}

export function agentLogFor(file: string, taskId: string): AgentLogLine[] {
  return readAgentLog(file).filter((l) => l.taskId === taskId);
}

// ---------------------------------------------------------------- replicas

export interface ClusterSettings {
  /** postgres:// URL of the database (the schema is separate) */
  postgresUrl: string;
  schema: string;
  redisUrl: string;
  prefix: string;
  leaseTtlMs?: number;
  sweepIntervalMs?: number;
  /** cluster.commitRetryMs (default: the server's) */
  commitRetryMs?: number;
  /** the file cluster-agent*.mjs append to */
  agentLog: string;
  /** merged over the generated config (top-level keys) */
  extraConfig?: Record<string, unknown>;
}

export class Replica {
  proc?: ChildProcess;
  private out = '';
  private exitedPromise: Promise<void> = Promise.resolve();
  /** every pid this replica has had, oldest first */
  readonly pids: number[] = [];

  constructor(
    readonly id: string,
    readonly port: number,
    readonly grpcPort: number,
    readonly dir: string,
    readonly configFile: string,
    private readonly agentLog: string,
  ) {}

  get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** JSON-RPC endpoint (and HTTP+JSON base) of an agent on this replica */
  url(agentId: string): string {
    return `${this.base}/a2a/${agentId}`;
  }

  get pid(): number {
    const pid = this.proc?.pid;
    if (pid === undefined) throw new Error(`replica ${this.id} has not been started`);
    return pid;
  }

  get running(): boolean {
    return !!this.proc && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  output(): string {
    return this.out;
  }

  /** Why the current (or last) process died: the first error lines of its output, not the object dumps after them. */
  crashSummary(): string {
    const run = this.out.slice(this.out.lastIndexOf(`----- replica ${this.id} started`));
    const lines = run.split('\n');
    const at = lines.findIndex((l) => /^(\w*Error\b|Uncaught|.*Unhandled)/.test(l));
    const exit = lines.find((l) => l.includes(' exited: ')) ?? '(still running)';
    return `${exit.trim()}\n${at < 0 ? lines.slice(-15).join('\n') : lines.slice(Math.max(0, at - 3), at + 15).join('\n')}`;
  }

  /** Spawns the replica and waits for GET /readyz to answer 200. */
  async start(readyTimeoutMs = 30_000): Promise<void> {
    if (this.running) throw new Error(`replica ${this.id} is already running`);
    const env: NodeJS.ProcessEnv = { ...process.env, CLUSTER_AGENT_LOG: this.agentLog, CLUSTER_REPLICA_ID: this.id };
    delete env.AGENTPORT_CONFIG;
    const proc = spawn(process.execPath, [BIN, 'serve', '--config', this.configFile], {
      cwd: this.dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.proc = proc;
    if (proc.pid !== undefined) this.pids.push(proc.pid);
    this.out += `\n----- replica ${this.id} started (pid ${proc.pid}) at ${new Date().toISOString()}\n`;
    const keep = (b: Buffer) => {
      this.out = (this.out + b.toString('utf8')).slice(-60_000);
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    this.exitedPromise = new Promise<void>((resolve) => {
      proc.on('exit', (code, signal) => {
        this.out += `\n----- replica ${this.id} (pid ${proc.pid}) exited: code ${code} signal ${signal}\n`;
        resolve();
      });
      proc.on('error', (err) => {
        keep(Buffer.from(`spawn failed: ${err.message}\n`));
        resolve();
      });
    });
    await this.waitReady(readyTimeoutMs);
  }

  async waitReady(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = 'no answer';
    while (Date.now() < deadline) {
      if (!this.running) throw new Error(`replica ${this.id} exited during start-up:\n${this.out.slice(-5_000)}`);
      try {
        const res = await fetch(`${this.base}/readyz`, { signal: AbortSignal.timeout(2_000) });
        last = `${res.status} ${(await res.text()).slice(0, 300)}`;
        if (res.status === 200) return;
      } catch (err) {
        last = err instanceof Error ? err.message : String(err);
      }
      await sleep(50);
    }
    throw new Error(`replica ${this.id} not ready after ${timeoutMs} ms (last /readyz: ${last}):\n${this.out.slice(-5_000)}`);
  }

  /** kill -9, and wait for the process to be gone. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.proc!.kill('SIGKILL');
    await this.exitedPromise;
  }

  /** SIGSTOP: the process stalls (a long GC pause, a frozen VM) without dying; its sockets stay open. */
  pause(): void {
    if (this.running) this.proc!.kill('SIGSTOP');
  }

  /** SIGCONT after pause(). */
  resume(): void {
    if (this.running) this.proc!.kill('SIGCONT');
  }

  /** SIGTERM (graceful shutdown), SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.proc!.kill('SIGCONT');
    this.proc!.kill('SIGTERM');
    const timer = setTimeout(() => this.proc?.kill('SIGKILL'), graceMs);
    await this.exitedPromise;
    clearTimeout(timer);
  }
}

export interface Cluster {
  replicas: Replica[];
  settings: ClusterSettings;
  get(id: string): Replica;
  /** every replica's output (the last `perReplica` characters of each), for a failure message */
  logs(perReplica?: number): string;
  /** starts every replica that is not running (after a test killed one) */
  ensureRunning(): Promise<void>;
  /** stops every replica (SIGTERM, then SIGKILL) and removes their directories */
  stop(): Promise<void>;
}

export function replicaConfig(settings: ClusterSettings, r: { id: string; port: number; grpcPort: number; dataDir: string }): Record<string, unknown> {
  return {
    server: { host: '127.0.0.1', port: r.port, dataDir: r.dataDir, logLevel: 'warn', grpc: { port: r.grpcPort } },
    storage: { driver: 'postgres', url: settings.postgresUrl, schema: settings.schema, maxConnections: 10 },
    bus: { driver: 'redis', url: settings.redisUrl, prefix: settings.prefix },
    cluster: {
      replicaId: r.id,
      leaseTtlMs: settings.leaseTtlMs ?? 2_000,
      sweepIntervalMs: settings.sweepIntervalMs ?? 300,
      ...(settings.commitRetryMs !== undefined ? { commitRetryMs: settings.commitRetryMs } : {}),
    },
    push: { allowHttp: true, allowlist: ['127.0.0.1'] },
    agents: [
      { id: 'echo', builtin: 'echo' },
      { id: 'work', module: CLUSTER_AGENT },
      { id: 'resumable', module: CLUSTER_AGENT_RESUMABLE },
    ],
    auth: { mode: 'none' },
    ...settings.extraConfig,
  };
}

/** `agentport db migrate --config F`, as docs/deploy.md says to run ahead of a rollout. */
export async function migrate(configFile: string): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.AGENTPORT_CONFIG;
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [BIN, 'db', 'migrate', '--config', configFile], {
      cwd: path.dirname(configFile),
      env,
      timeout: 60_000,
    });
    return `${stdout}${stderr}`;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`agentport db migrate failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

/**
 * Creates the replicas' directories and configs (ports chosen now and kept across restarts), applies
 * the migrations with `agentport db migrate`, then starts every replica at once, as a rollout would.
 */
export async function startCluster(ids: string[], settings: ClusterSettings): Promise<Cluster> {
  const root = await mkdtemp(path.join(tmpdir(), 'agentport-cluster-'));
  const replicas: Replica[] = [];
  for (const id of ids) {
    const dir = path.join(root, id);
    const dataDir = path.join(dir, 'data');
    await mkdir(dataDir, { recursive: true });
    const port = await freePort();
    const grpcPort = await freePort();
    const configFile = path.join(dir, 'agentport.yaml');
    // JSON is YAML.
    await writeFile(configFile, JSON.stringify(replicaConfig(settings, { id, port, grpcPort, dataDir }), null, 2));
    replicas.push(new Replica(id, port, grpcPort, dir, configFile, settings.agentLog));
  }
  const cluster: Cluster = {
    replicas,
    settings,
    get(id) {
      const r = replicas.find((x) => x.id === id);
      if (!r) throw new Error(`no replica ${id}`);
      return r;
    },
    logs: (perReplica = 4_000) => replicas.map((r) => `===== replica ${r.id} (port ${r.port})\n${r.output().slice(-perReplica)}`).join('\n'),
    async ensureRunning() {
      await Promise.all(replicas.filter((r) => !r.running).map((r) => r.start()));
    },
    async stop() {
      await Promise.all(replicas.map((r) => r.stop(5_000)));
      await rm(root, { recursive: true, force: true });
    },
  };
  try {
    await migrate(replicas[0]!.configFile);
    await Promise.all(replicas.map((r) => r.start()));
  } catch (err) {
    await Promise.all(replicas.map((r) => r.kill()));
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n${cluster.logs().slice(-8_000)}`);
  }
  return cluster;
}

// ---------------------------------------------------------------- cleanup of shared engines

/** Drops a test's schema (its tables and rows) from a PostgreSQL database. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema.replace(/"/g, '')}" CASCADE`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Where a failed fault test's message gets its context from; each read when the test fails. */
export interface FailureLogs {
  cluster?: () => Cluster | undefined;
  postgres?: () => { log(): Promise<string> } | undefined;
  redis?: () => { log(): string } | undefined;
  /** characters of the replicas' output to keep (default 6,000) */
  replicaTail?: number;
}

/**
 * Runs a test body; when it fails, its message ends with the tails of the replicas' output and of
 * the private services' logs, so a CI failure can be read without rerunning it.
 */
export async function withFailureLogs(logs: FailureLogs, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof Error) {
      err.message += `\n\n--- replica output (tail) ---\n${logs.cluster?.()?.logs(logs.replicaTail ?? 6_000)}`;
      const pgServer = logs.postgres?.();
      if (pgServer) err.message += `\n--- private PostgreSQL log (tail) ---\n${(await pgServer.log()).slice(-2_000)}`;
      const redis = logs.redis?.();
      if (redis) err.message += `\n--- private Redis log (tail) ---\n${redis.log().slice(-1_000)}`;
    }
    throw err;
  }
}
