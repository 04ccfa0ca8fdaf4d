/**
 * Issue 27 item 4b (ADR 0039): a remote reached with a token exchanged at an external security
 * token service (RFC 8693). Two real Agentport servers on loopback: B is the remote and its own
 * STS (token exchange enabled for A as a trusted client, A's access tokens accepted as subject
 * tokens, verified at A's JWKS); A serves B's A2A agent and B's MCP face with
 * `auth: { kind: token-exchange }`. A's caller reaches B as themselves (B's usage names them in
 * A's namespace), the exchanged token is reused until near its expiry, and an exchange B refuses
 * fails the caller's task with B's reason.
 */
import { createServer } from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../../src/auth/oauth/client-registry.js';
import { openSqliteStore } from '../../../src/store/index.js';
import { rpc, type TestServer } from '../../support/server.js';
import { startOAuthServer } from '../oauth/support.js';

const ALICE_KEY = 'alice-token-exchange-key-0000001';
const B_ADMIN_KEY = 'b-admin-token-exchange-key-00001';
const EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';

let a: TestServer;
let b: TestServer;
let aUrl: string;

/** A port free now, so B can name A as a trusted issuer before A starts (A names B in its agents). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));
  return port;
}

beforeAll(async () => {
  const aPort = await freePort();
  aUrl = `http://127.0.0.1:${aPort}`;
  b = await startOAuthServer({
    auth: { apiKeys: [{ key: B_ADMIN_KEY, subject: 'b-admin', scopes: ['admin'] }], oauth: { tokenExchange: { subjectIssuers: [{ issuer: aUrl }] } } },
    agents: [{ id: 'echo', builtin: 'echo' }],
  });
  // A's clients at B, made as `agentport clients create [--token-exchange]` makes them, on B's database.
  const store = await openSqliteStore({ file: path.join(b.dataDir, 'agentport.db') });
  let trusted: { id: string; secret: string };
  let untrusted: { id: string; secret: string };
  try {
    const t = await createClient(store.oauth, { name: 'agentport A', kind: 'machine', scopes: ['a2a:discover', 'a2a:publish', 'mcp:tools'], tokenExchange: true });
    trusted = { id: t.client.clientId, secret: t.clientSecret! };
    const u = await createClient(store.oauth, { name: 'agentport A, no exchange', kind: 'machine', scopes: ['a2a:publish'] });
    untrusted = { id: u.client.clientId, secret: u.clientSecret! };
  } finally {
    await store.close();
  }
  const sts = (client: { id: string; secret: string }, extra: Record<string, unknown> = {}) => ({ kind: 'token-exchange', issuer: b.http, clientId: client.id, clientSecret: client.secret, ...extra });
  a = await startOAuthServer({
    server: { port: aPort },
    agents: [
      { id: 'bee-a2a', remote: { cardUrl: `${b.http}/a2a/echo`, allowlist: ['127.0.0.1'], auth: sts(trusted, { resource: `${b.http}/a2a/echo`, scopes: ['a2a:publish'] }) } },
      { id: 'bee-mcp', mcp: { url: `${b.http}/mcp`, allowlist: ['127.0.0.1'], auth: sts(trusted, { resource: `${b.http}/mcp`, scopes: ['mcp:tools'] }) } },
      { id: 'bee-untrusted', remote: { cardUrl: `${b.http}/a2a/echo`, allowlist: ['127.0.0.1'], auth: { ...sts(untrusted), issuer: undefined, tokenEndpoint: `${b.http}/oauth/token` } } },
    ],
    auth: { mode: 'required', apiKeys: [{ key: ALICE_KEY, subject: 'alice', scopes: ['a2a:publish', 'a2a:discover', 'mcp:tools'] }] },
  });
  expect(a.http).toBe(aUrl);
});
afterAll(async () => {
  await a?.stop();
  await b?.stop();
});

const send = (agent: string, text: string) =>
  rpc(`${a.http}/a2a/${agent}`, 'SendMessage', { message: { messageId: `m-${randomBytes(6).toString('hex')}`, role: 'ROLE_USER', parts: [{ text }] } }, { 'x-api-key': ALICE_KEY });
const textOf = (task: any): string => [...(task.artifacts ?? []).flatMap((x: any) => x.parts), ...(task.status?.message?.parts ?? [])].map((p: any) => p.text ?? JSON.stringify(p.data)).join(' ');

async function bAudit(): Promise<any[]> {
  const r = await fetch(`${b.http}/api/v1/audit?limit=1000`, { headers: { 'x-api-key': B_ADMIN_KEY } });
  expect(r.status).toBe(200);
  return ((await r.json()) as any).records;
}
const exchangesAtB = async () => (await bAudit()).filter((x) => x.action === 'token.issued' && x.details?.grantType === EXCHANGE_GRANT);

async function usageSubjectsAtB(): Promise<string[]> {
  const r = await fetch(`${b.http}/api/v1/usage?by=subject`, { headers: { 'x-api-key': B_ADMIN_KEY } });
  return (((await r.json()) as any).groups ?? []).map((g: any) => g.key.subject);
}

async function waitFor<T>(probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a remote reached with a token exchanged at its security token service (auth: token-exchange)', () => {
  it("A's caller reaches B's A2A agent as themselves: B's usage names the caller in A's namespace", async () => {
    const r = await send('bee-a2a', 'hello through the sts');
    const task = r.body.result?.task;
    expect(task?.status?.state, JSON.stringify(r.body)).toBe('TASK_STATE_COMPLETED');
    expect(textOf(task)).toContain('hello through the sts');
    // B's records: the caller as B knows them (A's issuer + A's subject), never A's client alone.
    const subjects = await waitFor(async () => {
      const s = await usageSubjectsAtB();
      return s.includes(`${aUrl}#alice`) ? s : undefined;
    });
    expect(subjects).not.toContain('alice');
    const exchanges = await exchangesAtB();
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]).toMatchObject({ outcome: 'success', details: { grantType: EXCHANGE_GRANT } });
  });

  it('a later call reuses the exchanged token (no second exchange while it lives)', async () => {
    const r = await send('bee-a2a', 'again');
    expect(r.body.result?.task?.status?.state).toBe('TASK_STATE_COMPLETED');
    expect(await exchangesAtB()).toHaveLength(1);
  });

  it("B's MCP face as an agent: the tool call goes out with an exchanged token for B's /mcp", async () => {
    const r = await send('bee-mcp', 'over mcp via the sts');
    const task = r.body.result?.task;
    expect(task?.status?.state, JSON.stringify(r.body)).toBe('TASK_STATE_COMPLETED');
    expect(textOf(task)).toContain('over mcp via the sts');
    // Another audience, another exchange.
    expect(await exchangesAtB()).toHaveLength(2);
  });

  it("a client B does not trust with the exchange: the caller's task fails with B's reason", async () => {
    const r = await send('bee-untrusted', 'not exchangeable');
    const task = r.body.result?.task;
    expect(task?.status?.state).toBe('TASK_STATE_FAILED');
    expect(textOf(task)).toContain('refused to exchange your token (unauthorized_client');
  });

  it("B refuses a subject token naming A's issuer but not signed with A's keys (verified at A's JWKS)", async () => {
    const { issueAccessToken } = await import('../../../src/auth/access-tokens.js');
    const { KeyStore } = await import('../../../src/core/keys/key-store.js');
    const stranger = new KeyStore({ dataDir: path.join(a.dataDir, 'stranger-keys') });
    const forged = await issueAccessToken(stranger, { issuer: aUrl, audience: b.http, subject: 'alice', scopes: ['a2a:publish'], ttlSeconds: 60 });
    const store = await openSqliteStore({ file: path.join(b.dataDir, 'agentport.db') });
    let client: { id: string; secret: string };
    try {
      const t = await createClient(store.oauth, { name: 'probe', kind: 'machine', scopes: ['a2a:publish'], tokenExchange: true });
      client = { id: t.client.clientId, secret: t.clientSecret! };
    } finally {
      await store.close();
    }
    const exchange = (subject: string) =>
      fetch(`${b.http}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: EXCHANGE_GRANT, subject_token: subject, subject_token_type: 'urn:ietf:params:oauth:token-type:access_token' }),
      });
    const signedElsewhere = await exchange(forged);
    expect(signedElsewhere.status).toBe(400);
    expect(await signedElsewhere.json()).toMatchObject({ error: 'invalid_grant', error_description: `subject_token is not an access token of ${aUrl} for this server` });
  });
});
