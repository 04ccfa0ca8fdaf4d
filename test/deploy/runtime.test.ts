/**
 * The deployment files that run something, run outside a container (no container engine on the
 * test machines): deploy/entrypoint.sh starts a real `agentport serve`, deploy/healthcheck.mjs
 * probes it, and Debian's nginx runs deploy/nginx/nginx.conf in front of it, with the upstream
 * names (compose services) pointed at that server. docs/deploy.md says what this leaves unverified.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../bindings/a2a-grpc/client.js';
import { ensureBuilt, ROOT } from '../support/cluster.js';
import { freePort, sleep, waitForPort } from '../support/private-services.js';
import { userMessage } from '../support/a2a-payloads.js';

const ENTRYPOINT = path.join(ROOT, 'deploy/entrypoint.sh');
const HEALTHCHECK = path.join(ROOT, 'deploy/healthcheck.mjs');
const NGINX_CONF = path.join(ROOT, 'deploy/nginx/nginx.conf');
const LATCH_AGENT = path.join(ROOT, 'test/fixtures/agents/latch-agent.mjs');
const NGINX = '/usr/sbin/nginx';
const ADMIN_KEY = 'deploy-test-admin-key-0123456789';

function requireNginx(): void {
  if (!existsSync(NGINX)) {
    throw new Error(`${NGINX} is missing: install Debian's nginx (apt-get install -y nginx-light; .ci/run does this) to check deploy/nginx/nginx.conf`);
  }
}

interface Proc {
  proc: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Proc {
  const proc = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (b: Buffer) => (out = (out + b.toString('utf8')).slice(-20_000));
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  return { proc, output: () => out, exited };
}

async function waitReady(base: string, p: Proc, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (p.proc.exitCode !== null) throw new Error(`exited during start-up:\n${p.output()}`);
    const status = await fetch(`${base}/readyz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await sleep(100);
  }
  throw new Error(`not ready after ${timeoutMs} ms:\n${p.output()}`);
}

let dir: string;
let port: number;
let grpcPort: number;
let server: Proc;
/** The test's environment without an AGENTPORT_CONFIG of its own, plus `extra`. */
const entrypointEnv = (extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.AGENTPORT_CONFIG;
  return { ...env, ...extra };
};

beforeAll(async () => {
  ensureBuilt();
  dir = await mkdtemp(path.join(tmpdir(), 'agentport-deploy-'));
  port = await freePort();
  grpcPort = await freePort();
  const config = [
    'server:',
    '  logLevel: warn',
    `  grpc: { port: ${grpcPort} }`,
    'auth:',
    '  apiKeys:',
    '    - { key: "${TEST_ADMIN_KEY}", subject: admin, scopes: [admin] }',
    'agents:',
    '  - { id: echo, builtin: echo }',
    `  - { id: latch, module: ${JSON.stringify(LATCH_AGENT)} }`,
    '',
  ].join('\n');
  await writeFile(path.join(dir, 'agentport.yaml'), config);
  // As the image runs it: options only (the entrypoint adds `serve`), config from the environment,
  // host and data dir from AGENTPORT_HOST / AGENTPORT_DATA_DIR (which does not exist yet).
  server = start(
    'sh',
    [ENTRYPOINT, '--port', String(port)],
    entrypointEnv({
      AGENTPORT_CONFIG: path.join(dir, 'agentport.yaml'),
      AGENTPORT_HOST: '127.0.0.1',
      AGENTPORT_DATA_DIR: path.join(dir, 'data'),
      TEST_ADMIN_KEY: ADMIN_KEY,
    }),
    dir,
  );
  await waitReady(`http://127.0.0.1:${port}`, server);
}, 60_000);

afterAll(async () => {
  if (server && server.proc.exitCode === null) {
    server.proc.kill('SIGKILL');
    await server.exited;
  }
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('deploy/entrypoint.sh', () => {
  it('execs `agentport serve` with AGENTPORT_HOST and AGENTPORT_DATA_DIR as flags, creating the data dir', () => {
    const cmdline = readFileSync(`/proc/${server.proc.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    // The shell is gone: the pid the container engine signals is node itself.
    expect(path.basename(cmdline[0] ?? '')).toBe('node');
    expect(cmdline.slice(1)).toEqual(['--max-semi-space-size=64', path.join(ROOT, 'bin/agentport.js'), 'serve', '--host', '127.0.0.1', '--data-dir', path.join(dir, 'data'), '--port', String(port)]);
    expect(readdirSync(path.join(dir, 'data'))).toContain('agentport.db');
  });

  it('passes other commands to the CLI unchanged (`card` against the running server)', () => {
    const r = spawnSync('sh', [ENTRYPOINT, 'card', `http://127.0.0.1:${port}/a2a/echo`, '--json'], { env: entrypointEnv({}), encoding: 'utf8', timeout: 30_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).name).toMatch(/echo/i);
  });

  it('refuses a data dir it cannot write with exit 73 and a message naming the directory', async () => {
    const blocker = path.join(dir, 'a-file');
    await writeFile(blocker, 'not a directory');
    const r = spawnSync('sh', [ENTRYPOINT, 'serve'], { env: entrypointEnv({ AGENTPORT_DATA_DIR: path.join(blocker, 'data') }), encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(73);
    expect(r.stderr).toContain(`the data dir ${path.join(blocker, 'data')} is not writable`);
  });
});

describe('deploy/healthcheck.mjs', () => {
  it('exits 0 while /readyz answers 200', () => {
    const r = spawnSync(process.execPath, [HEALTHCHECK], { env: { ...process.env, AGENTPORT_HEALTHCHECK_URL: `http://127.0.0.1:${port}/readyz` }, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  });

  it('exits 1 with the reason when nothing answers', async () => {
    const closed = await freePort();
    const r = spawnSync(process.execPath, [HEALTHCHECK], { env: { ...process.env, AGENTPORT_HEALTHCHECK_URL: `http://127.0.0.1:${closed}/readyz` }, encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`127.0.0.1:${closed}/readyz`);
  });

  it('defaults to the image port, 8080, and the /readyz path', () => {
    expect(readFileSync(HEALTHCHECK, 'utf8')).toContain("'http://127.0.0.1:8080/readyz'");
  });
});

/** deploy/nginx/nginx.conf with the compose service names and listen ports of this test. */
function nginxTestCopy(o: { httpUpstream: string; grpcUpstream: string; listenHttp: string; listenGrpc: string }): string {
  const original = readFileSync(NGINX_CONF, 'utf8');
  const copy = original
    .replace('server agentport:8080;', `server ${o.httpUpstream};`)
    .replace('server agentport:50051;', `server ${o.grpcUpstream};`)
    .replace('listen 8080;', `listen ${o.listenHttp};`)
    .replace('listen 50051 http2;', `listen ${o.listenGrpc} http2;`);
  // Each replacement must have hit: the test checks the shipped file, not a file of its own.
  expect(copy.split('\n').length).toBe(original.split('\n').length);
  expect(copy).not.toMatch(/agentport:\d|listen 8080;|listen 50051 /);
  return copy;
}

describe('deploy/nginx/nginx.conf', () => {
  let nginx: Proc | undefined;
  let nginxPort: number;
  let nginxGrpcPort: number;

  afterAll(async () => {
    if (nginx && nginx.proc.exitCode === null) {
      nginx.proc.kill('SIGTERM');
      await nginx.exited;
    }
  });

  it('passes `nginx -t` (upstream names resolved to 127.0.0.1)', async () => {
    requireNginx();
    const conf = path.join(dir, 'nginx-t.conf');
    await writeFile(conf, nginxTestCopy({ httpUpstream: '127.0.0.1:8080', grpcUpstream: '127.0.0.1:50051', listenHttp: '127.0.0.1:8080', listenGrpc: '127.0.0.1:50051' }));
    // stdout and stderr to a file: the config logs to /dev/stdout, which cannot be opened when it is
    // a socket (Node's pipes); in a container it is a pipe.
    const log = path.join(dir, 'nginx-t.out');
    const fd = openSync(log, 'w');
    const r = spawnSync(NGINX, ['-t', '-c', conf, '-e', path.join(dir, 'nginx-t.err')], { stdio: ['ignore', fd, fd] });
    closeSync(fd);
    const out = readFileSync(log, 'utf8');
    expect(r.status, out).toBe(0);
    expect(out).toContain('test is successful');
  });

  it('in front of the server: SSE events arrive one by one as the agent emits them, and gRPC goes through', async () => {
    requireNginx();
    nginxPort = await freePort();
    nginxGrpcPort = await freePort();
    const conf = path.join(dir, 'nginx.conf');
    await writeFile(conf, nginxTestCopy({ httpUpstream: `127.0.0.1:${port}`, grpcUpstream: `127.0.0.1:${grpcPort}`, listenHttp: `127.0.0.1:${nginxPort}`, listenGrpc: `127.0.0.1:${nginxGrpcPort}` }));
    const log = path.join(dir, 'nginx.out');
    const fd = openSync(log, 'w');
    const proc = spawn(NGINX, ['-c', conf, '-e', path.join(dir, 'nginx.err'), '-g', `daemon off; pid ${path.join(dir, 'nginx.pid')};`], { cwd: dir, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    nginx = { proc, output: () => readFileSync(log, 'utf8'), exited: new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal }))) };
    await waitForPort(nginxPort, 10_000, 'nginx').catch((err: Error) => {
      throw new Error(`${err.message}\n${nginx?.output()}`);
    });

    const latchDir = await mkdtemp(path.join(dir, 'latch-'));
    const res = await fetch(`http://127.0.0.1:${nginxPort}/a2a/latch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-api-key': ADMIN_KEY },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: userMessage(`latch ${latchDir} 3`) } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let seen = '';
    const readUntil = async (needle: string) => {
      const deadline = Date.now() + 10_000;
      while (!seen.includes(needle)) {
        if (Date.now() > deadline) throw new Error(`no "${needle}" through nginx; got:\n${seen}`);
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before "${needle}":\n${seen}`);
        seen += decoder.decode(value, { stream: true });
      }
    };
    // Each event reaches the client while the agent still waits for the next release: nothing
    // between the agent and the client holds events back.
    for (const i of [1, 2, 3]) {
      expect(seen).not.toContain(`event ${i}`);
      await writeFile(path.join(latchDir, `go-${i}`), '');
      await readUntil(`event ${i}`);
    }
    await readUntil('TASK_STATE_COMPLETED');
    await reader.cancel();

    const grpc = connect(nginxGrpcPort);
    try {
      const { response } = await grpc.unary('SendMessage', { tenant: 'echo', message: { messageId: 'via-nginx', role: 'ROLE_USER', parts: [{ text: 'hello through nginx' }] } }, { 'x-api-key': ADMIN_KEY });
      expect(JSON.stringify(response)).toContain('hello through nginx');
    } finally {
      grpc.close();
    }
  }, 60_000);
});

describe('deploy/entrypoint.sh, stopping', () => {
  it('SIGTERM reaches the server, which drains and exits 0', async () => {
    server.proc.kill('SIGTERM');
    const { code } = await server.exited;
    // 0 is the CLI's drained exit; a shell killed by the signal, or a forced exit, gives 143.
    expect(code, server.output()).toBe(0);
  });
});
