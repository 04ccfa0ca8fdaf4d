/**
 * deploy/Dockerfile built as shipped and run, with rootful podman from Debian on a stand-in of its
 * base image (no container registry is reachable here; scripts/test-container-images.sh, run by
 * scripts/test-prerequisites.sh, installs podman and builds the stand-in). Then:
 * - one container, as `docker run` would start it (defaults only, own network namespace): health,
 *   readiness, card, HEALTHCHECK, uid, PID 1, SIGTERM, the unwritable-data-dir exit, size, labels,
 *   SBOM;
 * - deploy/compose.yaml's topology in a pod with a loopback-only network namespace: PostgreSQL and
 *   Redis (the machine's own, started in the pod's namespace: pod-services.ts), `db migrate`,
 *   three replicas reading deploy/agentport.yaml, and a task started on replica 1 streamed live
 *   from replica 3.
 * The containers listen on their namespaces' own loopback: the test reaches them with the host's
 * node entered into that namespace (fixtures/netns-probe.mjs), so no host port is taken.
 * docs/deploy.md ("The image") says what this leaves unverified.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/cluster.js';
import { hurryEarlyBuild } from './early-build.js';
import { type PodService, startPostgres, startRedis } from './pod-services.js';
import { BUILD_STAGE, buildFingerprint, EARLY_BUILD_STAMP, IMAGE, IMAGE_BUILD_LOCK, imageBuildArgs, imageId, PACKAGES_STAGE } from '../../scripts/image-build.mjs';
import { CACHE, labels, missingPrerequisites, NODE_BASE, ok, PROBE_HEADERS, pidOf, podman, probe, probeCommand, probeJson, RUN, removeLeftovers, removeUnusedLayers, run } from './podman.js';

/**
 * Budget for the runtime image (podman's Size, bytes). Measured 2026-11-28: 463 MiB, of which the
 * stand-in base is 271 MiB. A budget, not a measurement: the build stage's tree (1.3 GB) or the dev
 * dependencies shipping would break it.
 */
const SIZE_BUDGET_BYTES = 560 * 1024 * 1024;
const LATCH_AGENT = path.join(ROOT, 'test/fixtures/agents/latch-agent.mjs');
const ADMIN_KEY = 'image-test-admin-key-0123456789';
const PG_PASSWORD = 'image-test-postgres-password';
const REVISION = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout?.trim() || 'unknown';
const seconds = (from: number) => `${((Date.now() - from) / 1000).toFixed(1)} s`;

let dir: string;
let buildLog = '';

beforeAll(async () => {
  const missing = missingPrerequisites();
  if (missing.length > 0) {
    throw new Error(`deploy/Dockerfile cannot be built here; missing: ${missing.join('; ')}. Run scripts/test-container-images.sh as root (npm test runs it).`);
  }
  dir = await mkdtemp(path.join(tmpdir(), `${RUN}-`));
  chmodSync(dir, 0o755); // bind-mounted into containers running as uid 1000
  await removeLeftovers();

  // scripts/test-prerequisites.sh started this same build in the background (scripts/image-build.mjs):
  // wait for it under its lock, then build from the layers it left, running nothing twice; or not at
  // all when it built the image and its stages from this very tree (its stamp, below).
  const waited = Date.now();
  const hurried = hurryEarlyBuild();
  if (hurried.length > 0) console.info(`[image] the prerequisites' build is still running: ${hurried.length} processes back to normal priority`);
  const wait = await run('flock', [IMAGE_BUILD_LOCK, 'true'], { timeoutMs: 40 * 60_000 });
  if (wait.code !== 0) throw new Error(`flock ${IMAGE_BUILD_LOCK} failed (exit ${wait.code}): ${wait.stderr}`);
  console.info(`[image] waited ${seconds(waited)} for a build under way (the prerequisites' one: ${path.join(CACHE, 'agentport-build-early.log')})`);
  const started = Date.now();
  const built = earlyBuildOfThisTree();
  if (built) {
    console.info(`[image] the prerequisites' build is of this tree and tagged as it left it (${path.join(CACHE, 'agentport-build-early.log')}): not built again`);
  } else {
    const args = imageBuildArgs();
    // A cold build took 19 min on a loaded 2-core machine (docs/deploy.md, "The image").
    const build = await run('flock', [IMAGE_BUILD_LOCK, 'podman', ...args.image], { timeoutMs: 40 * 60_000 });
    buildLog = build.stdout + build.stderr;
    writeFileSync(path.join(CACHE, 'agentport-build.log'), buildLog);
    if (build.code !== 0) throw new Error(`podman build -f deploy/Dockerfile failed (exit ${build.code}):\n${buildLog.slice(-6000)}`);
    // Tag the build stages (all cached by now): their layers (`npm ci`, the pruned packages, the
    // console) are then kept as the next build's cache when the layers of earlier builds go.
    for (const stage of args.stages) await ok(stage, 10 * 60_000);
  }
  const removed = await removeUnusedLayers(NODE_BASE);
  console.info(`[image] removed ${removed.length} layers of earlier builds`);
  console.info(`[image] deploy/Dockerfile ${built ? "taken from the prerequisites' build" : 'built'} in ${seconds(started)}`);
}, 50 * 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * Whether the prerequisites' build (`node scripts/image-build.mjs early`) made the image and its
 * stages from what this test would build them from: its stamp names this tree's fingerprint (the
 * context's files, the Dockerfile, the build arguments with this commit, the base image's id), and
 * the three tags still point at the ids it left. Its build then is this one, and its exit status
 * was 0 (it writes the stamp only then); a build from the layer cache would only check them again
 * (50-180 s of podman reading the copied trees on the loaded 2-core machine: docs/benchmarks.md,
 * "suites38"). Anything else, a changed file, another build since, no stamp, and the test builds.
 */
function earlyBuildOfThisTree(): boolean {
  if (!existsSync(EARLY_BUILD_STAMP)) return false;
  let stamp: { fingerprint?: string; ids?: Record<string, string | undefined> };
  try {
    stamp = JSON.parse(readFileSync(EARLY_BUILD_STAMP, 'utf8'));
  } catch {
    return false;
  }
  if (stamp.fingerprint !== buildFingerprint()) return false;
  return [IMAGE, BUILD_STAGE, PACKAGES_STAGE].every((name) => {
    const id = imageId(name);
    return id !== undefined && stamp.ids?.[name] === id;
  });
}

describe('deploy/Dockerfile, the image', () => {
  let image: any;
  beforeAll(async () => {
    image = JSON.parse(await ok(['image', 'inspect', IMAGE]))[0];
  });

  it('keeps its HEALTHCHECK, runs as the `node` user and carries the OCI labels of the build', () => {
    expect(image.Healthcheck?.Test).toEqual(['CMD', 'node', '/app/deploy/healthcheck.mjs']);
    expect(image.Config.User).toBe('node');
    const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect(image.Config.Labels).toMatchObject({
      'org.opencontainers.image.version': version,
      'org.opencontainers.image.revision': REVISION,
      'org.opencontainers.image.source': `file://${ROOT}`,
      'org.opencontainers.image.licenses': 'Apache-2.0',
    });
  });

  it(`stays under its size budget (${SIZE_BUDGET_BYTES / 1024 / 1024} MB)`, async () => {
    const size = Number(await ok(['image', 'inspect', IMAGE, '--format', '{{.Size}}']));
    console.info(`[image] runtime image: ${(size / 1024 / 1024).toFixed(0)} MB`);
    expect(size).toBeGreaterThan(100 * 1024 * 1024);
    expect(size).toBeLessThan(SIZE_BUDGET_BYTES);
  });

  it('ships the production packages of package-lock.json, no dev package, and their SBOM', async () => {
    // Expected from the lock, independently of npm's pruning and SBOM code.
    type LockEntry = { version?: string; dev?: boolean; optional?: boolean };
    const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
    const entries = Object.entries(lock.packages)
      .filter(([where]) => where.startsWith('node_modules/'))
      .map(([where, e]) => ({ ...e, where, id: `${where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length)}@${e.version}` }));
    const prod = entries.filter((e) => !e.dev && !e.optional);
    const prodIds = new Set(prod.map((e) => e.id));
    const devOnly = entries.filter((e) => e.dev && !prodIds.has(e.id));
    expect(prod.length).toBeGreaterThan(100);
    expect(devOnly.length).toBeGreaterThan(100);

    const found = JSON.parse(
      await ok([
        'run',
        '--rm',
        '--network',
        'none',
        ...labels,
        '-e',
        `WHERE=${JSON.stringify(entries.map((e) => e.where))}`,
        '--entrypoint',
        'node',
        IMAGE,
        '-e',
        'const fs=require("fs");console.log(JSON.stringify({sbom:JSON.parse(fs.readFileSync("/app/sbom.cdx.json","utf8")),installed:JSON.parse(process.env.WHERE).filter((w)=>fs.existsSync(`/app/${w}/package.json`))}))',
      ]),
    );
    const installed = new Set<string>(found.installed);
    for (const e of prod) expect(installed, `${e.where} is missing from the image`).toContain(e.where);
    for (const e of entries.filter((e) => e.dev)) expect(installed, `${e.where} (dev) is in the image`).not.toContain(e.where);

    expect(found.sbom.bomFormat).toBe('CycloneDX');
    // A scoped name comes whole in `name` (npm) or split into `group` and `name`.
    const components = new Set<string>(found.sbom.components.map((c: { group?: string; name: string; version: string }) => `${c.group ? `${c.group}/` : ''}${c.name}@${c.version}`));
    for (const e of prod) expect(components, `${e.id} is not in the SBOM`).toContain(e.id);
    for (const e of devOnly) expect(components, `${e.id} (dev) is in the SBOM`).not.toContain(e.id);
  });
});

describe('deploy/Dockerfile, one container started with the defaults', () => {
  const name = `${RUN}-single`;
  let pid: number;

  beforeAll(async () => {
    const started = Date.now();
    // As `docker run agentport:local` starts it, except for the network: its own namespace,
    // where it listens on the default 8080 and 50051 without taking a host port.
    await ok(['run', '-d', '--name', name, ...labels, '--network', 'none', IMAGE]);
    pid = await pidOf(name);
    const ready = await probe(pid, ADMIN_KEY, ['wait', '30000', 'http://127.0.0.1:8080/readyz'], 40_000);
    if (ready.code !== 0) throw new Error(`not ready: ${ready.stdout}\n${(await podman(['logs', name])).stderr}`);
    console.info(`[image] one container ready in ${seconds(started)}`);
  }, 60_000);

  afterAll(async () => {
    await podman(['rm', '-f', '-v', name]);
  });

  it('answers /healthz, /readyz (embedded SQLite in the data volume) and the agent card', async () => {
    const [health, ready, card] = await probeJson(pid, ADMIN_KEY, ['get', 'http://127.0.0.1:8080/healthz', 'http://127.0.0.1:8080/readyz', 'http://127.0.0.1:8080/.well-known/agent-card.json']);
    expect(health).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(ready).toMatchObject({ status: 200, body: { status: 'ready', checks: { storage: 'ok' } } });
    expect(card.status).toBe(200);
    expect(card.body.name).toEqual(expect.any(String));
    // No public URL configured: the card names the default port on localhost.
    expect(card.body.supportedInterfaces).toContainEqual(expect.objectContaining({ url: 'http://localhost:8080/a2a/echo', protocolBinding: 'JSONRPC' }));
  });

  it('is healthy by its own HEALTHCHECK', async () => {
    const r = await podman(['healthcheck', 'run', name]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  });

  it('runs node as PID 1 as uid 1000, not root, with the data dir the image declares', () => {
    // Read from the host: the container's PID 1 is `pid` here (no user namespace).
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    expect(/^Uid:\s+(\d+)\s+(\d+)/m.exec(status)?.slice(1)).toEqual(['1000', '1000']);
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    expect(path.basename(cmdline[0] ?? '')).toBe('node');
    expect(cmdline.slice(1)).toEqual(['--max-semi-space-size=64', '/app/bin/agentport.js', 'serve', '--host', '0.0.0.0', '--data-dir', '/var/lib/agentport']);
  });

  it('exits 0 soon after SIGTERM to PID 1', async () => {
    const sent = Date.now();
    await ok(['kill', '--signal', 'TERM', name]);
    const code = await ok(['wait', name], 30_000);
    const took = Date.now() - sent;
    console.info(`[image] SIGTERM → exit ${code} in ${took} ms`);
    expect(code).toBe('0');
    expect(took).toBeLessThan(10_000);
  });

  it('stops with exit 73 and says why when its data dir is not writable by uid 1000', async () => {
    const rootOwned = path.join(dir, 'root-owned');
    spawnSync('mkdir', ['-m', '0755', rootOwned]);
    const r = await podman(['run', '--rm', ...labels, '--network', 'none', '-v', `${rootOwned}:/var/lib/agentport`, IMAGE]);
    expect(r.code, r.stdout + r.stderr).toBe(73);
    expect(r.stderr).toContain('/var/lib/agentport is not writable by uid 1000');
  });
});

describe('deploy/compose.yaml topology in a loopback-only pod: PostgreSQL, Redis, `db migrate`, three replicas', () => {
  const pod = `${RUN}-stack`;
  const replicas = [1, 2, 3].map((n) => ({ n, name: `${pod}-agentport-${n}`, base: `http://127.0.0.1:808${n}` }));
  let podPid: number;
  let latchDir: string;
  let agentport: string[];
  const services: PodService[] = [];

  beforeAll(async () => {
    const started = Date.now();
    latchDir = path.join(dir, 'latch');
    spawnSync('mkdir', ['-m', '0755', latchDir]);
    // deploy/agentport.yaml as compose mounts it, plus one agent whose events the test releases.
    const shipped = readFileSync(path.join(ROOT, 'deploy/agentport.yaml'), 'utf8');
    expect(shipped).not.toMatch(/^agents:/m);
    writeFileSync(path.join(dir, 'agentport.yaml'), `${shipped}\nagents:\n  - { id: latch, module: /opt/agentport-test/latch-agent.mjs }\n`);
    // A --network none pod: one namespace with only a loopback, shared by its containers. Its
    // /etc/hosts gets no --add-host entries (podman 4.3), so every container mounts this one, which
    // gives the compose service names.
    writeFileSync(path.join(dir, 'hosts'), '127.0.0.1 localhost postgres redis\n::1 localhost\n');
    await ok(['pod', 'create', '--name', pod, ...labels, '--network', 'none']);
    await ok(['pod', 'start', pod]);
    podPid = await pidOf(await ok(['pod', 'inspect', pod, '--format', '{{.InfraContainerID}}']));
    services.push(await startPostgres(podPid, dir, { user: 'agentport', password: PG_PASSWORD, database: 'agentport' }));
    services.push(await startRedis(podPid, dir));
    const inPod = ['--pod', pod, ...labels, '-v', `${path.join(dir, 'hosts')}:/etc/hosts:ro`];
    const env = ['-e', `PGPASSWORD=${PG_PASSWORD}`, '-e', `AGENTPORT_ADMIN_KEY=${ADMIN_KEY}`, '-e', 'AGENTPORT_PUBLIC_URL=http://localhost:8080', '-e', 'AGENTPORT_GRPC_PUBLIC_URL=localhost:50051'];
    agentport = [...inPod, '-v', `${path.join(dir, 'agentport.yaml')}:/etc/agentport/agentport.yaml:ro`, '-v', `${LATCH_AGENT}:/opt/agentport-test/latch-agent.mjs:ro`, '-v', `${latchDir}:/latch:ro`, ...env];
    // compose's `migrate` service; the replicas run with storage.migrate: false.
    const migrate = await podman(['run', '--rm', ...agentport, IMAGE, 'db', 'migrate'], 60_000);
    if (migrate.code !== 0) throw new Error(`db migrate: exit ${migrate.code}\n${migrate.stdout}${migrate.stderr}`);
    // compose's three replicas (`init: true`). One namespace, so each its own ports; and its own
    // UTS namespace for its own HOSTNAME (cluster.replicaId): in a pod podman sets the pod's.
    for (const r of replicas) {
      await ok([
        'run',
        '-d',
        ...agentport,
        '-e',
        `AGENTPORT_HEALTHCHECK_URL=${r.base}/readyz`,
        '--name',
        r.name,
        '--init',
        '--uts',
        'private',
        '--hostname',
        `replica-${r.n}`,
        IMAGE,
        '--port',
        `808${r.n}`,
        '--grpc-port',
        `5005${r.n}`,
      ]);
    }
    const ready = await probe(podPid, ADMIN_KEY, ['wait', '60000', ...replicas.map((r) => `${r.base}/readyz`)], 70_000);
    if (ready.code !== 0) throw new Error(`replicas not ready: ${ready.stdout}\n${(await podman(['logs', replicas[0]!.name])).stderr}`);
    console.info(`[image] pod with PostgreSQL, Redis and three replicas ready in ${seconds(started)}`);
  }, 180_000);

  afterAll(async () => {
    await podman(['pod', 'stop', '-t', '5', pod], 120_000);
    for (const service of services) await service.stop();
    await podman(['pod', 'rm', '-f', pod], 120_000);
  });

  it('has every replica ready on the shared PostgreSQL and Redis, healthy by the HEALTHCHECK, each with its own replica id', async () => {
    const answers = await probeJson(podPid, ADMIN_KEY, ['get', ...replicas.map((r) => `${r.base}/readyz`)]);
    for (const a of answers) expect(a).toMatchObject({ status: 200, body: { status: 'ready', checks: { storage: 'ok', bus: 'ok' } } });
    for (const r of replicas) {
      const h = await podman(['healthcheck', 'run', r.name]);
      expect(h.code, `${r.name}: ${h.stdout}${h.stderr}`).toBe(0);
      const logs = await podman(['logs', r.name]);
      expect(logs.stdout + logs.stderr).toContain(`"replicaId":"replica-${r.n}"`);
    }
  }, 90_000);

  it('streams on replica 3, event by event, a task started on replica 1', async () => {
    const send = await probeJson(podPid, ADMIN_KEY, [
      'post',
      `${replicas[0]!.base}/a2a/latch`,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: `image-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: 'latch /latch 2' }] }, configuration: { returnImmediately: true } },
      }),
    ]);
    expect(send.status, JSON.stringify(send.body)).toBe(200);
    const taskId: string = send.body.result.task.id;
    // Subscribed once the executor on replica 1 has started, so the stream opens on WORKING.
    const deadline = Date.now() + 15_000;
    for (;;) {
      const get = await probeJson(podPid, ADMIN_KEY, ['post', `${replicas[0]!.base}/a2a/latch`, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: taskId } })]);
      if (get.body?.result?.status?.state === 'TASK_STATE_WORKING') break;
      if (Date.now() > deadline) throw new Error(`task not WORKING on replica 1: ${JSON.stringify(get.body)}`);
    }

    const stream = spawn('nsenter', probeCommand(podPid, ['sse', `${replicas[2]!.base}/a2a/latch/tasks/${encodeURIComponent(taskId)}:subscribe`]), {
      env: { ...process.env, PROBE_HEADERS: PROBE_HEADERS(ADMIN_KEY) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const events: any[] = [];
    let wake = () => {};
    createInterface({ input: stream.stdout! }).on('line', (line) => {
      events.push(JSON.parse(line));
      wake();
    });
    const ended = new Promise<number | null>((resolve) => stream.on('exit', (code) => resolve(code)));
    const kinds = () =>
      events.map((e) => {
        const d = e.data;
        if (d?.task) return `task:${d.task.status?.state}`;
        if (d?.statusUpdate) return `status:${d.statusUpdate.status?.state}`;
        if (d?.artifactUpdate) return `artifact:${d.artifactUpdate.artifact?.parts?.map((p: { text?: string }) => p.text).join('')}`;
        return JSON.stringify(d).slice(0, 200);
      });
    const waitForEvent = (kind: string) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${kind} on replica 3 within 15 s; got ${JSON.stringify(kinds())}`)), 15_000);
        wake = () => {
          if (kinds().includes(kind)) {
            clearTimeout(timer);
            resolve();
          }
        };
        wake();
      });
    try {
      await waitForEvent('task:TASK_STATE_WORKING');
      // Each event is released only after the previous one reached replica 3's stream: they
      // travel live from replica 1's executor through Redis, not as a replay of the log.
      writeFileSync(path.join(latchDir, 'go-1'), '');
      await waitForEvent('artifact:event 1');
      expect(kinds()).not.toContain('artifact:event 2');
      writeFileSync(path.join(latchDir, 'go-2'), '');
      await waitForEvent('status:TASK_STATE_COMPLETED');
      expect(await ended).toBe(0);
    } finally {
      stream.kill();
    }
    expect(kinds()).toEqual(['task:TASK_STATE_WORKING', 'artifact:event 1', 'artifact:event 2', 'status:TASK_STATE_COMPLETED']);
  }, 90_000);

  it('stops every replica with exit 0 on SIGTERM (through the init process)', async () => {
    await ok(['stop', '-t', '75', ...replicas.map((r) => r.name)], 120_000);
    for (const r of replicas) expect(await ok(['inspect', r.name, '--format', '{{.State.ExitCode}}'])).toBe('0');
  }, 90_000);
});
