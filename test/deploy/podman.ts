/**
 * Rootful podman for test/deploy/image.test.ts, configured for this machine by
 * scripts/test-container-images.sh (runc, explicit ulimits), and the ways the test reaches into a
 * container's network namespace and cleans up after runs that were killed.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CACHE, NODE_BASE } from '../../scripts/image-build.mjs';
import { ROOT } from '../support/cluster.js';

export { CACHE, NODE_BASE };
export const CONTAINERS_CONF = path.join(CACHE, 'containers.conf');
const PROBE = path.join(ROOT, 'test/deploy/fixtures/netns-probe.mjs');
const LABEL = 'io.agentport.test=image';
/** Every container, pod and temp dir of a run carries its pid: leftovers of dead runs are found by it. */
export const RUN = `agentport-image-${process.pid}`;
export const labels = ['--label', LABEL, '--label', `io.agentport.test.pid=${process.pid}`];

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

export function run(cmd: string, args: string[], opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env: { ...process.env, CONTAINERS_CONF, ...opts.env }, timeout: opts.timeoutMs ?? 60_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr: stderr || (err && typeof err.code !== 'number' ? String(err) : '') });
    });
  });
}

export const podman = (args: string[], timeoutMs?: number) => run('podman', args, { timeoutMs });

/** podman, which must exit 0; its trimmed stdout. */
export async function ok(args: string[], timeoutMs?: number): Promise<string> {
  const r = await podman(args, timeoutMs);
  if (r.code !== 0) throw new Error(`podman ${args.join(' ')}: exit ${r.code}\n${(r.stderr + r.stdout).slice(-4000)}`);
  return r.stdout.trim();
}

/** The host pid of a container's first process. */
export async function pidOf(container: string): Promise<number> {
  return Number(await ok(['inspect', container, '--format', '{{.State.Pid}}']));
}

const onPath = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;

/** What is missing for the image test, each with how to get it. */
export function missingPrerequisites(): string[] {
  const missing: string[] = [];
  if (process.getuid?.() !== 0) missing.push('root (rootful podman)');
  for (const [tool, pkg] of [
    ['podman', 'podman'],
    ['buildah', 'buildah'],
    ['runc', 'runc'],
    ['catatonit', 'catatonit'],
    ['nsenter', 'util-linux'],
    ['setpriv', 'util-linux'],
    ['redis-server', 'redis-server'],
  ]) {
    if (!onPath(tool!)) missing.push(`${tool} (apt-get install ${pkg})`);
  }
  if (!postgresBinDir()) missing.push('PostgreSQL server binaries in /usr/lib/postgresql/*/bin (apt-get install postgresql)');
  if (!existsSync(CONTAINERS_CONF)) missing.push(`${CONTAINERS_CONF} (written by scripts/test-container-images.sh)`);
  else if (spawnSync('podman', ['image', 'exists', NODE_BASE], { env: { ...process.env, CONTAINERS_CONF } }).status !== 0) {
    missing.push(`the image ${NODE_BASE} (built by scripts/test-container-images.sh)`);
  }
  return missing;
}

export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const version = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a))[0];
  return version && path.join(root, version, 'bin');
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Pods, containers, service processes and temp dirs of earlier runs that were killed mid-run. */
export async function removeLeftovers(): Promise<void> {
  type Listed = { Id: string; Labels?: Record<string, string> };
  const deadRun = (l: Listed) => !alive(Number(l.Labels?.['io.agentport.test.pid'] ?? 0));
  const pods = JSON.parse((await ok(['pod', 'ps', '--filter', `label=${LABEL}`, '--format', 'json'])) || '[]') as Listed[];
  const containers = JSON.parse((await ok(['ps', '-a', '--filter', `label=${LABEL}`, '--format', 'json'])) || '[]') as Listed[];
  for (const c of containers.filter(deadRun)) await podman(['rm', '-f', '-v', c.Id]);
  for (const p of pods.filter(deadRun)) await podman(['pod', 'rm', '-f', p.Id]);
  // PostgreSQL and Redis run in a pod's namespace from the run's temp dir (their working dir).
  const ofDeadRun = (s: string) => {
    const m = /agentport-image-(\d+)-/.exec(s);
    return m !== null && !alive(Number(m[1]));
  };
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    let where = '';
    try {
      where = `${readlinkSync(`/proc/${entry}/cwd`)} ${readFileSync(`/proc/${entry}/cmdline`, 'utf8')}`;
    } catch {
      continue;
    }
    if (ofDeadRun(where)) {
      try {
        process.kill(Number(entry), 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  }
  for (const entry of readdirSync(tmpdir()).filter((e) => ofDeadRun(`${e}`))) rmSync(path.join(tmpdir(), entry), { recursive: true, force: true });
}

/**
 * Removes the layers of earlier builds that no tagged image is made of any more, among the
 * images built on `base`: each build of changed sources leaves its predecessor's layers behind,
 * untagged, and `podman image prune` does not take intermediate images. Keeps disk use flat from
 * run to run, with the tagged images' layers (the next build's cache) kept.
 */
export async function removeUnusedLayers(base: string): Promise<string[]> {
  const ids = [...new Set((await ok(['images', '-a', '-q', '--no-trunc'])).split('\n').filter(Boolean))];
  const images = JSON.parse(await ok(['image', 'inspect', ...ids])) as { Id: string; Parent?: string; RepoTags?: string[] }[];
  const parent = new Map(images.map((i) => [i.Id, i.Parent || undefined]));
  const ancestry = (id: string) => {
    const chain: string[] = [];
    for (let p = parent.get(id); p; p = parent.get(p)) chain.push(p);
    return chain;
  };
  const keep = new Set(images.filter((i) => i.RepoTags?.length).flatMap((i) => [i.Id, ...ancestry(i.Id)]));
  const baseId = images.find((i) => i.RepoTags?.includes(base))?.Id;
  const stale = images.filter((i) => !keep.has(i.Id) && baseId !== undefined && ancestry(i.Id).includes(baseId)).sort((a, b) => ancestry(b.Id).length - ancestry(a.Id).length); // children first
  for (const i of stale) await podman(['rmi', i.Id]);
  return stale.map((i) => i.Id);
}

export const PROBE_HEADERS = (adminKey: string) => JSON.stringify({ 'x-api-key': adminKey, 'a2a-version': '1.0' });

/** The arguments running fixtures/netns-probe.mjs with the host's node in the network namespace of `pid`. */
export const probeCommand = (pid: number, args: string[]) => [`--net=/proc/${pid}/ns/net`, process.execPath, PROBE, ...args];

/** fixtures/netns-probe.mjs in the network namespace of `pid`. */
export function probe(pid: number, adminKey: string, args: string[], timeoutMs = 30_000): Promise<Ran> {
  return run('nsenter', probeCommand(pid, args), { timeoutMs, env: { PROBE_HEADERS: PROBE_HEADERS(adminKey) } });
}

export async function probeJson(pid: number, adminKey: string, args: string[]): Promise<any> {
  const r = await probe(pid, adminKey, args);
  if (r.code !== 0) throw new Error(`probe ${args.join(' ')}: exit ${r.code}\n${r.stdout}${r.stderr}`);
  return JSON.parse(r.stdout);
}
