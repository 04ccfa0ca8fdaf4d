/**
 * The core interop suite (the official @a2a-js/sdk client over JSON-RPC, HTTP+JSON and gRPC) against
 * a 3-replica deployment: bench/rr-proxy.js sends each HTTP request to the next replica in turn and
 * spreads gRPC connections over the replicas, and the cards advertise the proxy. So a task created
 * through one replica is read, streamed, canceled and given push configs through the others.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { describeInterop } from '../interop/interop-suite.js';
import { SERVER_CONFIG } from '../interop/sdk-support.js';
import { freePort } from '../support/private-services.js';
import { dropSchema, ensureBuilt, migrate, Replica, replicaConfig, ROOT, uniqueName, waitFor, type ClusterSettings } from '../support/cluster.js';

const PG_URL = process.env.AGENTPORT_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.AGENTPORT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function startDeployment(): Promise<{ http: string; stop(): Promise<void> }> {
  ensureBuilt();
  const root = await mkdtemp(path.join(tmpdir(), 'agentport-interop-cluster-'));
  const settings: ClusterSettings = {
    postgresUrl: PG_URL,
    schema: uniqueName('interop'),
    redisUrl: REDIS_URL,
    prefix: uniqueName('interop'),
    agentLog: path.join(root, 'agent.log'),
  };
  const [httpPort, grpcPort] = [await freePort(), await freePort()];
  const proxyUrl = `http://127.0.0.1:${httpPort}`;
  const replicas: Replica[] = [];
  for (const id of ['A', 'B', 'C']) {
    const dir = path.join(root, id);
    const dataDir = path.join(dir, 'data');
    await mkdir(dataDir, { recursive: true });
    const r = { id, port: await freePort(), grpcPort: await freePort(), dataDir };
    const base = replicaConfig(settings, r) as { server: { grpc: Record<string, unknown> } & Record<string, unknown> };
    const config = {
      ...base,
      // Cards advertise the proxy: every call the SDK makes goes through the round robin.
      server: { ...base.server, publicUrl: proxyUrl, grpc: { ...base.server.grpc, publicUrl: `127.0.0.1:${grpcPort}` } },
      agents: SERVER_CONFIG.agents,
      // as startTestServer does for the single-node suite: this tests clustering, not auth
      auth: { mode: 'none', ...SERVER_CONFIG.auth },
      push: SERVER_CONFIG.push,
    };
    const configFile = path.join(dir, 'agentport.yaml');
    await writeFile(configFile, JSON.stringify(config, null, 2));
    replicas.push(new Replica(id, r.port, r.grpcPort, dir, configFile, settings.agentLog));
  }
  await migrate(replicas[0]!.configFile);
  await Promise.all(replicas.map((r) => r.start()));
  const proxy: ChildProcess = spawn(
    process.execPath,
    [
      path.join(ROOT, 'bench/rr-proxy.js'),
      '--listen',
      String(httpPort),
      '--upstream',
      replicas.map((r) => r.base).join(','),
      '--tcp-listen',
      String(grpcPort),
      '--tcp-upstream',
      replicas.map((r) => `127.0.0.1:${r.grpcPort}`).join(','),
    ],
    { stdio: 'ignore' },
  );
  await waitFor(async () => (await fetch(`${proxyUrl}/healthz`).catch(() => undefined))?.ok === true, { timeoutMs: 10_000, what: 'the proxy to answer' });
  return {
    http: proxyUrl,
    async stop() {
      proxy.kill('SIGKILL');
      await Promise.all(replicas.map((r) => r.stop(5_000)));
      await dropSchema(PG_URL, settings.schema).catch(() => {});
      await rm(root, { recursive: true, force: true });
    },
  };
}

// One deployment for the three transports: the suite's per-transport stop() leaves it running, and
// the file's afterAll takes it down.
let deployment: Promise<{ http: string; stop(): Promise<void> }> | undefined;
afterAll(async () => {
  if (deployment) await (await deployment).stop();
}, 60_000);

describeInterop('3 replicas behind a round-robin proxy', async () => {
  deployment ??= startDeployment();
  const d = await deployment;
  return { http: d.http, stop: async () => {} };
});
