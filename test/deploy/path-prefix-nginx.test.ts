/**
 * The nginx block of docs/deploy.md, "Under a path prefix", run by Debian's nginx in front of a
 * server whose `server.publicUrl` has the prefix: the block is taken from the document itself
 * (the test checks what readers copy), placed in a minimal `http {}` with the upstream
 * `agentport` pointed at the server. Through it: the 401 and its RFC 9728 document below the
 * prefix, the origin-root RFC 8414 §3.1 / RFC 9728 §3.1 documents, and the MCP SDK's discovery
 * without a 401 to start from.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { discoverOAuthServerInfo } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOAuthServer } from '../auth/oauth/support.js';
import { ROOT } from '../support/cluster.js';
import { freePort, waitForPort } from '../support/private-services.js';
import type { TestServer } from '../support/server.js';

const NGINX = '/usr/sbin/nginx';

/** The ```nginx block of the "Under a path prefix" section of docs/deploy.md. */
function documentedBlock(): string {
  const doc = readFileSync(path.join(ROOT, 'docs/deploy.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### Under a path prefix'));
  const block = /```nginx\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('docs/deploy.md: no nginx block under "Under a path prefix"');
  return block;
}

describe('docs/deploy.md, "Under a path prefix": the nginx block in front of the server', () => {
  let dir: string;
  let s: TestServer;
  let nginx: ChildProcess | undefined;
  let pub: string;
  let log: string;

  beforeAll(async () => {
    if (!existsSync(NGINX)) throw new Error(`${NGINX} is missing: install Debian's nginx (apt-get install -y nginx-light; .ci/run does this)`);
    dir = await mkdtemp(path.join(tmpdir(), 'agentport-prefix-nginx-'));
    const [port, nginxPort] = [await freePort(), await freePort()];
    pub = `http://127.0.0.1:${nginxPort}/agentport`;
    const conf = path.join(dir, 'nginx.conf');
    const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `${t}_temp_path ${path.join(dir, t)};`).join(' ');
    await writeFile(
      conf,
      `worker_processes 1;\nevents {}\nhttp {\n  access_log off;\n  ${temp}\n  upstream agentport { server 127.0.0.1:${port}; }\n  server {\n    listen 127.0.0.1:${nginxPort};\n${documentedBlock()}\n  }\n}\n`,
    );
    log = path.join(dir, 'nginx.out');
    const fd = openSync(log, 'w');
    nginx = spawn(NGINX, ['-c', conf, '-e', path.join(dir, 'nginx.err'), '-g', `daemon off; pid ${path.join(dir, 'nginx.pid')};`], { cwd: dir, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    await waitForPort(nginxPort, 10_000, 'nginx').catch((err: Error) => {
      throw new Error(`${err.message}\n${readFileSync(log, 'utf8')}`);
    });
    s = await startOAuthServer({ server: { port, publicUrl: pub } });
  }, 60_000);

  afterAll(async () => {
    if (nginx && nginx.exitCode === null) {
      const exited = new Promise((resolve) => nginx!.on('exit', resolve));
      nginx.kill('SIGTERM');
      await exited;
    }
    await s?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('challenges /mcp below the prefix and serves its RFC 9728 document there', async () => {
    const res = await fetch(`${pub}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
    expect(res.status).toBe(401);
    const url = /resource_metadata="([^"]+)"/.exec(res.headers.get('www-authenticate') ?? '')?.[1];
    expect(url).toBe(`${pub}/.well-known/oauth-protected-resource/mcp`);
    expect(((await (await fetch(url!)).json()) as { resource: string }).resource).toBe(`${pub}/mcp`);
  });

  it('forwards the origin-root documents of RFC 8414 §3.1 and RFC 9728 §3.1, and nothing else outside the prefix', async () => {
    const origin = new URL(pub).origin;
    for (const name of ['oauth-authorization-server', 'openid-configuration']) {
      const res = await fetch(`${origin}/.well-known/${name}/agentport`);
      expect(res.status, name).toBe(200);
      expect(((await res.json()) as { issuer: string }).issuer).toBe(pub);
    }
    const prm = await fetch(`${origin}/.well-known/oauth-protected-resource/agentport/a2a/echo`);
    expect(((await prm.json()) as { resource: string }).resource).toBe(`${pub}/a2a/echo`);
    expect((await fetch(`${origin}/mcp`)).status).toBe(404);
    expect((await fetch(`${origin}/.well-known/oauth-authorization-server`)).status).toBe(404);
  });

  it('lets the MCP client discover the server without a 401 to start from', async () => {
    const info = await discoverOAuthServerInfo(`${pub}/mcp`);
    expect(info.authorizationServerUrl).toBe(pub);
    expect(info.authorizationServerMetadata?.issuer).toBe(pub);
    expect(info.authorizationServerMetadata?.token_endpoint).toBe(`${pub}/oauth/token`);
  });
});
