/**
 * The real CLI (`node bin/agentport.js serve`, built dist) as a child process, for tests that
 * judge the server from outside: its resident memory (read from /proc), and whether it is still
 * alive after hostile input. Authentication is on, with one config API key holding every scope.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, sleep } from './private-services.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'bin/agentport.js');

/** The config API key of every child server: all scopes. */
export const CHILD_KEY = 'child-server-key-0123456789abcdef';

export interface ChildServer {
  base: string;
  grpc: string;
  pid: number;
  /** resident set size in bytes, from /proc/<pid>/status */
  rss(): number;
  alive(): boolean;
  /** the last 20 kB of its output, for failure messages */
  output(): string;
  stop(): Promise<void>;
}

/** `env`: variables set for the child over this process's environment (OTEL_*, say). */
export async function startChildServer(config: Record<string, unknown> = {}, options: { env?: Record<string, string> } = {}): Promise<ChildServer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'agentport-child-'));
  const [port, grpcPort] = [await freePort(), await freePort()];
  const auth = (config.auth ?? {}) as Record<string, unknown>;
  const file = {
    agents: [{ id: 'echo', builtin: 'echo' }],
    ...config,
    server: { logLevel: 'error', ...(config.server as object) },
    auth: { mode: 'required', apiKeys: [{ key: CHILD_KEY, subject: 'child-admin', scopes: ['admin', 'a2a:discover', 'a2a:publish', 'mcp:tools'] }], ...auth },
  };
  const configFile = path.join(dir, 'agentport.yaml');
  await writeFile(configFile, JSON.stringify(file)); // JSON is YAML
  const env = { ...process.env, ...options.env };
  delete env.AGENTPORT_CONFIG;
  const proc: ChildProcess = spawn(process.execPath, [bin, 'serve', '--config', configFile, '--host', '127.0.0.1', '--port', String(port), '--grpc-port', String(grpcPort), '--data-dir', path.join(dir, 'data')], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (b: Buffer) => void (out = (out + b.toString('utf8')).slice(-20_000));
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  let exited = false;
  const exit = new Promise<void>((resolve) => proc.on('exit', () => ((exited = true), resolve())));
  const base = `http://127.0.0.1:${port}`;
  const server: ChildServer = {
    base,
    grpc: `127.0.0.1:${grpcPort}`,
    pid: proc.pid!,
    rss() {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'));
      return Number(m?.[1] ?? 0) * 1024;
    },
    alive: () => !exited,
    output: () => out,
    async stop() {
      if (!exited) {
        proc.kill('SIGTERM');
        await Promise.race([exit, sleep(5_000)]);
        if (!exited) proc.kill('SIGKILL');
        await exit;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (exited) break;
    try {
      const res = await fetch(`${base}/readyz`);
      await res.arrayBuffer();
      if (res.status === 200) return server;
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  await server.stop();
  throw new Error(`the child server did not become ready:\n${out}`);
}
