/**
 * `agentport connect` prints steps filled in from the server's own description, and errors teach:
 * an unknown agent is answered with the agents anyone may discover (never a hidden one, and the
 * same answer for a hidden agent as for an unknown one), the card error names the v1.0 card path,
 * `tasks list --page-size` is checked before any request, and usage errors point at the help of
 * the command that was run.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import { freePort } from '../support/private-services.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { fakeIO } from './fake-io.js';

const PUBLISH_ONLY = 'connect-test-publish-0123456789';
let s: TestServer;
const cwd = mkdtempSync(path.join(tmpdir(), 'agentport-cli-connect-'));

beforeAll(async () => {
  s = await startTestServer({
    agents: [
      { id: 'echo', builtin: 'echo' },
      { id: 'secret-agent', builtin: 'echo', visibility: 'extended' },
    ],
    auth: { mode: 'required', apiKeys: [{ key: PUBLISH_ONLY, subject: 'carol', scopes: ['a2a:publish'] }] },
  });
}, 30_000);
afterAll(async () => s?.stop());

async function cli(...args: string[]) {
  const io = fakeIO(cwd);
  await runCli(['node', 'agentport', ...args], io);
  return { out: io.out, err: io.err, code: io.exits[0] ?? 0 };
}

describe('agentport connect', () => {
  it("claude-code: the claude mcp add command with this server's MCP URL", async () => {
    const r = await cli('connect', 'claude-code', '--url', s.http);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`claude mcp add --transport http agentport ${s.http}/mcp`);
    expect(r.out).toContain('run /mcp');
  });

  it('inspector: the Inspector command lines for this server', async () => {
    const r = await cli('connect', 'inspector', '--url', s.http);
    expect(r.out).toContain(`npx -y @modelcontextprotocol/inspector@2.12.0 --transport http --server-url ${s.http}/mcp`);
    expect(r.out).toContain(`npx -y @modelcontextprotocol/inspector@2.12.0 --cli ${s.http}/mcp --transport http --method tools/list`);
  });

  it('chatgpt and claude: the MCP URL to paste, OAuth as the server says', async () => {
    for (const client of ['chatgpt', 'claude']) {
      const r = await cli('connect', client, '--url', `${s.http}/some/path`);
      expect(r.code).toBe(0);
      expect(r.out).toContain(`     ${s.http}/mcp\n`);
      expect(r.out).toMatch(/OAuth|registers itself/);
    }
  });

  it('a2a: the card URL, the CLI command with a key, a client snippet; only public agents', async () => {
    const r = await cli('connect', 'a2a', '--url', s.http);
    expect(r.out).toContain(`${s.http}/a2a/echo/.well-known/agent-card.json`);
    expect(r.out).toContain(`agentport send ${s.http}/a2a/echo "hello" --api-key "$KEY"`);
    expect(r.out).toContain(`A2AClient.connect('${s.http}/a2a/echo'`);
    const hidden = await cli('connect', 'a2a', '--url', s.http, '--agent', 'secret-agent');
    expect(hidden.code).toBe(2);
    expect(hidden.err).toContain("no agent 'secret-agent'");
    expect(hidden.err).toContain('agents: echo');
    expect(hidden.err).not.toMatch(/agents: .*secret-agent/);
    expect(hidden.err).toContain('(run agentport connect --help for usage)');
  });

  it('a server that is not running: exit 4 and what to do', async () => {
    const r = await cli('connect', 'claude', '--url', `http://127.0.0.1:${await freePort()}`);
    expect(r.code).toBe(4);
    expect(r.err).toMatch(/cannot reach http:\/\/127\.0\.0\.1:\d+: .*is the server running/);
  });

  it('an unknown client: exit 2 with the choices', async () => {
    const r = await cli('connect', 'cursor');
    expect(r.code).toBe(2);
    expect(r.err).toContain('chatgpt, claude, claude-code, inspector, a2a');
  });
});

describe('unknown agents', () => {
  const rpcTo = async (agent: string, key?: string) => {
    const res = await fetch(`${s.http}/a2a/${agent}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...(key ? { 'x-api-key': key } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
    });
    return { status: res.status, body: await res.json() };
  };

  it('HTTP: the 404 names the public agents, never the hidden one', async () => {
    const card = await fetch(`${s.http}/a2a/ech/.well-known/agent-card.json`);
    expect(card.status).toBe(404);
    expect((await card.json()).error.message).toBe("No agent 'ech' here; the agents here are: echo");
    const rpc = await rpcTo('ech');
    expect(rpc.body.error.message).toBe("No agent 'ech' here; the agents here are: echo");
    const mcp = await fetch(`${s.http}/a2a/ech/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(mcp.status).toBe(404);
    expect((await mcp.json()).error.message).toBe("No agent 'ech' here; the agents here are: echo");
  });

  it('a hidden agent, to a caller who may not see it, gets the very answer an unknown agent gets', async () => {
    const hidden = await rpcTo('secret-agent', PUBLISH_ONLY);
    const unknown = await rpcTo('secret-agenu', PUBLISH_ONLY);
    expect(hidden.status).toBe(unknown.status);
    expect(JSON.stringify(hidden.body).replace('secret-agent', 'ID')).toBe(JSON.stringify(unknown.body).replace('secret-agenu', 'ID'));
  });

  it('CLI: the error names the v1.0 card path that failed and the agents there', async () => {
    const r = await cli('send', `${s.http}/a2a/ech`, 'hi', '--api-key', PUBLISH_ONLY);
    expect(r.code).toBe(4);
    expect(r.err).toContain(`agentport: ${s.http}/a2a/ech/.well-known/agent-card.json answered HTTP 404: No agent 'ech' here; the agents here are: echo; also tried ${s.http}/a2a/ech/.well-known/agent.json`);
  });
});

describe('usage errors', () => {
  it('tasks list --page-size out of range: exit 2 before any request (the server is not even up)', async () => {
    const nowhere = `http://127.0.0.1:${await freePort()}/a2a/echo`;
    for (const size of ['500', '0', 'ten']) {
      const r = await cli('tasks', 'list', nowhere, '--page-size', size);
      expect(r.code).toBe(2);
      expect(r.err).toContain(`--page-size must be an integer from 1 to 100, not "${size}"`);
      expect(r.err).toContain('(run agentport tasks list --help for usage)');
    }
  });

  it("a mistyped option points at that command's help", async () => {
    const r = await cli('tasks', 'get', `${s.http}/a2a/echo`, 'x', '--histroy', '3');
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown option '--histroy'");
    expect(r.err).toContain('(run agentport tasks get --help for usage)');
  });

  it('keys create and clients create: their own usage errors point at their own help', async () => {
    const key = await cli('keys', 'create', '--subject', 'bob', '--expires', 'soon');
    expect(key.code).toBe(2);
    expect(key.err).toContain('(run agentport keys create --help for usage)');
    const client = await cli('clients', 'create', '--name', 'job', '--machine', '--public');
    expect(client.code).toBe(2);
    expect(client.err).toContain('(run agentport clients create --help for usage)');
  });
});
