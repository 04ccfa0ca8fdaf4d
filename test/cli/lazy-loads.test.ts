/**
 * The built CLI loads only what its command uses (issue 26: every test that spawns `agentport`
 * pays for its start-up). `--help`, a command's help and a `card` that finds no agent load
 * neither the server (its store drivers, HTTP and MCP stacks) nor the gRPC client; a `serve` that
 * cannot start (a taken port, a data directory it cannot create or another server holds, a broken
 * agent module or card) fails before it loads the server. The child runs with
 * test/support/module-loads/record.cjs, which lists every module file it loads.
 *
 * The cases run side by side (at most vitest's maxConcurrency, 5, at once): each is a child
 * process of its own with its own folder, loads file and ports, and none reads what another
 * writes. One after another, the 17 starts used one core and took the sum of their times.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { requireBuilt, ROOT } from '../support/fresh-build.js';
import { freePort } from '../support/private-services.js';
import { lockDataDir } from '../../src/store/sqlite/data-dir-lock.js';

requireBuilt('dist/cli/main.js');
const work = mkdtempSync(path.join(tmpdir(), 'agentport-lazy-loads-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Packages (by their folder under node_modules) and built files none of these runs needs. */
const HEAVY = [
  'node_modules/@grpc/grpc-js/',
  'node_modules/@grpc/proto-loader/',
  'node_modules/protobufjs/',
  'node_modules/kysely/',
  'node_modules/fastify/',
  'node_modules/@modelcontextprotocol/server/',
  'node_modules/better-sqlite3/',
  'node_modules/@duckdb/',
  'node_modules/pg/',
  'node_modules/ioredis/',
  'node_modules/oidc-provider/',
  'node_modules/@opentelemetry/sdk-trace-base/',
  'dist/server/start.js',
];

let runs = 0;
/**
 * Runs the CLI with the recorder; its exit status and the files it loaded (relative to the
 * checkout). Asynchronous, so that the cases run side by side in this worker.
 */
async function loadsOf(args: string[], cwd = work): Promise<{ status: number | null; stderr: string; loaded: string[] }> {
  const file = path.join(work, `loads-${++runs}.txt`);
  const env: NodeJS.ProcessEnv = { ...process.env, MODULE_LOADS_FILE: file };
  delete env.AGENTPORT_CONFIG;
  const child = spawn(process.execPath, ['--require', path.join(ROOT, 'test/support/module-loads/record.cjs'), path.join(ROOT, 'bin/agentport.js'), ...args], {
    cwd,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  // As spawnSync's timeout did: a child that hangs is killed, and its status is null.
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const status = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  }).finally(() => clearTimeout(timer));
  const loaded = [...new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean))].map((f) => path.relative(ROOT, f));
  return { status, stderr, loaded };
}

const heavyIn = (loaded: string[]) => HEAVY.filter((h) => loaded.some((f) => f.startsWith(h)));

describe.concurrent('what the CLI loads', () => {
  it.for(['--help', 'card --help', 'send --help', 'serve --help', 'init --help'])('agentport %s loads no server and no gRPC client', { timeout: 60_000 }, async (args, { expect }) => {
    const { status, stderr, loaded } = await loadsOf(args.split(' '));
    expect(status, stderr).toBe(0);
    // the recorder sees both kinds of module: otherwise the absences below would prove nothing
    expect(loaded).toContain('dist/cli/program.js');
    expect(loaded.some((f) => f.startsWith('node_modules/commander/'))).toBe(true);
    expect(heavyIn(loaded)).toEqual([]);
  });

  it('agentport card <url> with no agent there fails (exit 4) without loading the gRPC client', async ({ expect }) => {
    const { status, stderr, loaded } = await loadsOf(['card', 'http://127.0.0.1:9/a2a/nobody']);
    expect(status, stderr).toBe(4);
    expect(loaded).toContain('dist/client/card-resolver.js');
    expect(heavyIn(loaded)).toEqual([]);
  }, 60_000);
});

describe.concurrent('a serve that cannot start loads no server', () => {
  /** A fresh folder with `agentport.yaml` serving `agent.mjs` (written from `source`) beside it. */
  function moduleAgentDir(source: string): string {
    const dir = mkdtempSync(path.join(work, 'serve-'));
    writeFileSync(path.join(dir, 'agent.mjs'), source);
    writeFileSync(path.join(dir, 'agentport.yaml'), 'agents:\n  - id: helper\n    module: ./agent.mjs\n');
    return dir;
  }

  async function serveArgs(dir: string, ports: { http?: number; grpc?: number } = {}, command: 'serve' | 'dev' = 'serve'): Promise<string[]> {
    return [command, '--port', String(ports.http ?? (await freePort())), '--grpc-port', String(ports.grpc ?? (await freePort())), '--data-dir', path.join(dir, 'data')];
  }

  it.for([
    ['serve', 'the HTTP port', 'http', 'HTTP'],
    ['serve', 'the gRPC port', 'grpc', 'gRPC'],
    ['dev', 'the HTTP port', 'http', 'HTTP'],
  ] as const)('agentport %s, %s in use: exit 1, named, without loading the server', { timeout: 60_000 }, async ([command, _what, which, listener], { expect }) => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      const dir = mkdtempSync(path.join(work, 'serve-'));
      const { status, stderr, loaded } = await loadsOf(await serveArgs(dir, { [which]: port }, command), dir);
      expect(status, stderr).toBe(1);
      expect(stderr).toContain(`Cannot start: the ${listener} port ${port} on 127.0.0.1 is already in use by another process.`);
      expect(loaded).toContain('dist/server/start-preflight.js');
      expect(heavyIn(loaded)).toEqual([]);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('a data directory that cannot be created: exit 1, named, without loading the server', async ({ expect }) => {
    const dir = mkdtempSync(path.join(work, 'serve-'));
    writeFileSync(path.join(dir, 'data'), 'a file where the data directory would be\n');
    const { status, stderr, loaded } = await loadsOf(await serveArgs(dir), dir);
    expect(status, stderr).toBe(1);
    expect(stderr).toContain(`Cannot start: the data directory ${path.join(dir, 'data')}`);
    expect(heavyIn(loaded)).toEqual([]);
  }, 60_000);

  it("a data directory another server holds: exit 1, names the holder, loading only the lock's driver", async ({ expect }) => {
    const dir = mkdtempSync(path.join(work, 'serve-'));
    const dataDir = path.join(dir, 'data');
    mkdirSync(dataDir);
    // This process holds it, as a running server would (its pid and start time are what the refusal names).
    const held = lockDataDir(dataDir, { pid: process.pid, startedAt: '2026-01-02T03:04:05.000Z' });
    try {
      const { status, stderr, loaded } = await loadsOf(await serveArgs(dir), dir);
      expect(status, stderr).toBe(1);
      expect(stderr).toContain(`Cannot start: the data directory ${dataDir} is in use by another Agentport (pid ${process.pid}, started 2026-01-02T03:04:05.000Z`);
      // The lock is SQLite's, so its driver is loaded; nothing else of the server is.
      expect(heavyIn(loaded)).toEqual(['node_modules/better-sqlite3/']);
    } finally {
      held.release();
    }
  }, 60_000);

  it.for([
    ['throws at import', "throw new Error('no token');\n", 1, 'threw while it was loaded: no token'],
    ['imports a missing package', "import 'agentport-no-such-package';\nexport default {};\n", 1, "imports 'agentport-no-such-package', which cannot be found"],
    ['exports no agent', 'export const answer = 42;\n', 2, 'must export an AgentDefinition'],
    ['exports an agent whose card has no name', "export default { card: { description: 'Helps.', skills: [] }, async execute(ctx) { ctx.complete(); } };\n", 2, 'has an invalid card: name is required'],
  ] as const)('an agent module that %s: named, without loading the server', { timeout: 60_000 }, async ([_what, source, code, words], { expect }) => {
    const dir = moduleAgentDir(source);
    const { status, stderr, loaded } = await loadsOf([...(await serveArgs(dir)), '--config', 'agentport.yaml'], dir);
    expect(status, stderr).toBe(code);
    expect(stderr).toContain(`Cannot start: agent 'helper': module ${path.join(dir, 'agent.mjs')} ${words}`);
    expect(loaded).toContain(path.relative(ROOT, path.join(dir, 'agent.mjs')));
    expect(heavyIn(loaded)).toEqual([]);
  });

  it('agentport dev with an agent module that throws at import: named, without loading the server', async ({ expect }) => {
    const dir = moduleAgentDir("throw new Error('no token');\n");
    const { status, stderr, loaded } = await loadsOf([...(await serveArgs(dir, {}, 'dev')), '--config', 'agentport.yaml'], dir);
    expect(status, stderr).toBe(1);
    expect(stderr).toContain(`Cannot start: agent 'helper': module ${path.join(dir, 'agent.mjs')} threw while it was loaded: no token`);
    expect(heavyIn(loaded)).toEqual([]);
  }, 60_000);

  it('a module agent that starts is evaluated once: the check before the server and the server share its import', async ({ expect }) => {
    const dir = moduleAgentDir(
      [
        "import { appendFileSync } from 'node:fs';",
        "appendFileSync(new URL('./evaluations.txt', import.meta.url), 'evaluated\\n');",
        "export default { card: { name: 'Helper', description: 'Helps.', skills: [] }, async execute(ctx) { ctx.complete(); } };",
        '',
      ].join('\n'),
    );
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.AGENTPORT_CONFIG;
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/agentport.js'), ...(await serveArgs(dir, { http: port })), '--config', 'agentport.yaml', '--log-level', 'error'], {
      cwd: dir,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await expect.poll(() => stderr, { timeout: 30_000 }).toContain('is running.');
      const card = await fetch(`http://127.0.0.1:${port}/a2a/helper/.well-known/agent-card.json`);
      expect(((await card.json()) as { name: string }).name).toBe('Helper');
      expect(readFileSync(path.join(dir, 'evaluations.txt'), 'utf8')).toBe('evaluated\n');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 60_000);
});
