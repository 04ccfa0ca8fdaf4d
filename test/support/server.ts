/**
 * Starts a real Agentport server (HTTP + gRPC on ephemeral loopback ports, SQLite in a temp dir)
 * from a config object, exactly as `agentport serve` would. Tests talk to it over real sockets.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseConfig } from '../../src/config/index.js';
import { startServer, type RunningServer, type StartOptions } from '../../src/server/start.js';

export interface TestServer extends RunningServer {
  dataDir: string;
  /** http://127.0.0.1:port */
  http: string;
  /** 127.0.0.1:port */
  grpc: string;
  /** stops the server and removes its data dir */
  stop(): Promise<void>;
}

export async function startTestServer(config: Record<string, unknown> = {}, opts: { dataDir?: string; keepData?: boolean; services?: StartOptions } = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'agentport-test-')));
  // Tests of other features do not depend on auth: mode none unless the test sets auth.mode.
  const auth = (config.auth ?? {}) as Record<string, unknown>;
  const input = {
    ...config,
    auth: { ...auth, mode: auth.mode ?? 'none' },
    server: { host: '127.0.0.1', port: 0, logLevel: 'error', ...(config.server as object), dataDir, grpc: { port: 0, ...((config.server as { grpc?: object })?.grpc ?? {}) } },
  };
  const resolved = parseConfig(input, { env: {}, cwd: dataDir });
  const running = await startServer(resolved, opts.services);
  return {
    ...running,
    dataDir,
    http: running.urls.http,
    grpc: running.urls.grpc ?? '',
    async stop() {
      // A stop that hangs fails only by the hook timeout; this says what the process still holds.
      const slow = setTimeout(() => process.stderr.write(`test server stop still waiting after 20 s; active resources: ${process.getActiveResourcesInfo().join(', ')}\n`), 20_000);
      slow.unref();
      await running.close().finally(() => clearTimeout(slow));
      if (!opts.keepData) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** JSON-RPC call helper with the v1.0 version header. */
export async function rpc(url: string, method: string, params: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // leave as text
  }
  return { status: res.status, body, headers: res.headers };
}

// Kept in a module of their own so that a file needing only these (a child-process test) does not
// load the whole server when it is collected; re-exported here for the files that import them from here.
export { readSse, userMessage } from './a2a-payloads.js';
