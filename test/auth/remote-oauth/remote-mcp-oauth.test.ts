/**
 * Issue 27 end to end (ADR 0035): two real Agentport servers on loopback. B is the remote: auth
 * required, its own authorization server and users. A serves B's MCP face as an agent with
 * `mcp: { url: <B>/mcp, auth: oauth }`. A user of A calls the agent and gets AUTH_REQUIRED with a
 * connect URL; the consent at B is done by HTTP requests (login page, consent page) as B's user;
 * A's callback stores the tokens and the waiting task goes on by itself; B's usage records name
 * B's user; a second user of A is still asked; the Connections API lists and deletes.
 *
 * A connect link is only good in the browser of the A user it names (issue 27): the "browser"
 * here holds A's console session cookie (signed in through A's own authorization server, as the
 * console does it) and the cookie `/connect/start` sets; another user's session is refused, no
 * session is sent to sign in first, and a callback outside the starting browser binds nothing.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, type TestServer } from '../../support/server.js';
import { consoleSignIn } from '../../console/console-code-flow.js';
import { browse, startOAuthServer } from '../oauth/support.js';
import { parseExposition, sampleSum } from '../../support/prometheus.js';

const ALICE_KEY = 'alice-remote-oauth-key-000000001';
const CAROL_KEY = 'carol-remote-oauth-key-000000001';
const B_ADMIN_KEY = 'b-admin-remote-oauth-key-0000001';
const A_ADMIN_KEY = 'a-admin-remote-oauth-key-0000001';
const BEA = { username: 'bea', password: 'bea has a long password here' };
/** A's own users, who sign in to A's console (their API keys above act for the same subjects) */
const ALICE = { username: 'alice', password: 'alice has a long password here' };
const CAROL = { username: 'carol', password: 'carol has a long password here' };
const VAULT_SECRET = randomBytes(32).toString('base64');

let b: TestServer;
let a: TestServer;

beforeAll(async () => {
  // B's access tokens live 60 s, within A's refresh margin: every later use refreshes first.
  b = await startOAuthServer({ auth: { apiKeys: [{ key: B_ADMIN_KEY, subject: 'b-admin', scopes: ['admin', 'read-usage'] }], oauth: { accessTokenTtlSeconds: 60 } }, agents: [{ id: 'echo', builtin: 'echo' }] }, [BEA]);
  a = await startOAuthServer(
    {
      agents: [
        { id: 'bee', mcp: { url: `${b.http}/mcp`, allowlist: ['127.0.0.1'], auth: { kind: 'oauth', connectWaitMs: 60_000 } } },
        { id: 'bee-a2a', remote: { cardUrl: `${b.http}/a2a/echo`, allowlist: ['127.0.0.1'], auth: { kind: 'oauth', connectWaitMs: 60_000 } } },
      ],
      auth: {
        mode: 'required',
        apiKeys: [
          { key: ALICE_KEY, subject: 'alice', scopes: ['a2a:publish', 'a2a:discover'] },
          { key: CAROL_KEY, subject: 'carol', scopes: ['a2a:publish', 'a2a:discover'] },
          { key: A_ADMIN_KEY, subject: 'a-admin', scopes: ['admin'] },
        ],
        vault: { keys: [{ id: 'k1', secret: VAULT_SECRET }] },
      },
    },
    [ALICE, CAROL],
  );
});
afterAll(async () => {
  await a?.stop();
  await b?.stop();
});

const send = (key: string, text: string) => rpc(`${a.http}/a2a/bee`, 'SendMessage', { message: { messageId: `m-${randomBytes(6).toString('hex')}`, role: 'ROLE_USER', parts: [{ text }] } }, { 'x-api-key': key });
const getTask = (key: string, id: string) => rpc(`${a.http}/a2a/bee`, 'GetTask', { id }, { 'x-api-key': key });

async function waitFor<T>(probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** B's user again (the revocation test deletes it). */
async function createBea(): Promise<void> {
  const r = await fetch(`${b.http}/api/v1/users`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': B_ADMIN_KEY }, body: JSON.stringify({ username: BEA.username, password: BEA.password }) });
  expect(r.status).toBe(201);
}

const connectUrlOf = (task: any): string => task.status.message.parts.find((p: any) => p.data?.connectUrl)?.data.connectUrl;

/** A's console session cookie (`ap_console=…`) of one of A's users, signed in as the console does it. */
async function signInToA(user: { username: string; password: string }): Promise<string> {
  const signed = await consoleSignIn(a.http, async (authorizeUrl, redirectUri) => (await browse(a, authorizeUrl, { redirectPrefix: redirectUri, user })).callback);
  expect(signed.session.username).toBe(user.username);
  return signed.cookie;
}

/**
 * Opens a connect link in a browser holding `aCookie` (A's console session), consents at B as
 * `BEA`, and returns B's redirect back to A's callback with the cookie `/connect/start` set.
 */
async function startAndConsent(link: string, aCookie: string): Promise<{ callback: URL; binding: string }> {
  const start = await fetch(link, { redirect: 'manual', headers: { cookie: aCookie } });
  expect(start.status, await start.clone().text()).toBe(302);
  const binding = start.headers.getSetCookie().find((c) => c.startsWith('ap_connect='));
  expect(binding).toMatch(/HttpOnly; SameSite=Lax/);
  const consent = await browse(b, start.headers.get('location')!, { redirectPrefix: `${a.http}/connect/callback`, user: BEA });
  expect(consent.stoppedAt).toBeUndefined();
  return { callback: consent.callback!, binding: binding!.split(';')[0]! };
}

/** The whole connect in the link's user's own browser: the callback's answer. */
async function connectInBrowser(link: string, aCookie: string): Promise<Response> {
  const { callback, binding } = await startAndConsent(link, aCookie);
  return fetch(callback, { headers: { cookie: `${aCookie}; ${binding}` } });
}

describe('a remote MCP server reached as each user (auth: oauth)', () => {
  let aliceTask: any;

  it('asks a user with no connection to connect: AUTH_REQUIRED with a connect URL on A', async () => {
    const r = await send(ALICE_KEY, 'hello from alice');
    aliceTask = r.body.result?.task;
    expect(aliceTask?.status?.state).toBe('TASK_STATE_AUTH_REQUIRED');
    const url = connectUrlOf(aliceTask);
    expect(url.startsWith(`${a.http}/connect/start?ticket=`)).toBe(true);
    expect(aliceTask.status.message.parts[0].text).toContain(url);
  });

  it('a connect link opened with no session on A sends the browser to sign in at A first, then back to the same link', async () => {
    const link = connectUrlOf(aliceTask);
    const r = await fetch(link, { redirect: 'manual' });
    expect(r.status).toBe(303);
    const location = r.headers.get('location')!;
    expect(location.startsWith(`${a.http}/console/#connect=`)).toBe(true);
    expect(decodeURIComponent(location.slice(location.indexOf('#connect=') + '#connect='.length))).toBe(link);
    expect(r.headers.getSetCookie().some((c) => c.startsWith('ap_connect='))).toBe(false);
  });

  it("another A user's browser opening alice's connect link is refused: nothing bound, the refusal audited", async () => {
    const carolCookie = await signInToA(CAROL);
    const r = await fetch(connectUrlOf(aliceTask), { redirect: 'manual', headers: { cookie: carolCookie } });
    expect(r.status).toBe(403);
    expect(r.headers.get('content-type')).toContain('text/html');
    expect(await r.text()).toContain('another Agentport user');
    expect(r.headers.get('location')).toBeNull();
    const list = (await (await fetch(`${a.http}/api/v1/connections`, { headers: { 'x-api-key': ALICE_KEY } })).json()) as any;
    expect(list.connections.find((c: any) => c.remote === 'bee').status).toBe('not-connected');
    const audit = (await (await fetch(`${a.http}/api/v1/audit?limit=500`, { headers: { 'x-api-key': A_ADMIN_KEY } })).json()) as any;
    expect(audit.records).toContainEqual(expect.objectContaining({ action: 'connection.refused', outcome: 'denied', actor: 'carol', target: 'agent:bee', details: { linkFor: 'alice' } }));
  });

  it('after consent at B as its user, the waiting task continues by itself and B records B’s user', async () => {
    const aliceCookie = await signInToA(ALICE);
    const started = await startAndConsent(connectUrlOf(aliceTask), aliceCookie);
    // The callback carried to a browser that did not start (no cookie of the start) binds nothing there.
    const elsewhere = await fetch(started.callback, { headers: { cookie: aliceCookie } });
    expect(elsewhere.status).toBe(403);
    expect(await elsewhere.text()).toContain('not started in this browser');
    const notYet = (await (await fetch(`${a.http}/api/v1/connections`, { headers: { 'x-api-key': ALICE_KEY } })).json()) as any;
    expect(notYet.connections.find((c: any) => c.remote === 'bee').status).toBe('not-connected');
    // The starting browser completes (B's code was not spent by the refused attempt).
    const callback = await fetch(started.callback, { headers: { cookie: `${aliceCookie}; ${started.binding}` } });
    const page = await callback.text();
    expect(callback.status).toBe(200);
    expect(page).toContain('connected');

    const done = await waitFor(async () => {
      const t = (await getTask(ALICE_KEY, aliceTask.id)).body.result;
      return ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED'].includes(t?.status?.state) ? t : undefined;
    });
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    const text = done.artifacts.flatMap((x: any) => x.parts.map((p: any) => p.text ?? JSON.stringify(p.data))).join(' ');
    expect(text).toContain('hello from alice');

    // B's usage records name B's user, not A's caller and not A itself.
    const subjects = await waitFor(async () => {
      const r = await fetch(`${b.http}/api/v1/usage?by=subject`, { headers: { 'x-api-key': B_ADMIN_KEY } });
      const body: any = await r.json();
      const found: string[] = (body.groups ?? []).map((g: any) => g.key.subject);
      return found.includes(BEA.username) ? found : undefined;
    });
    expect(subjects).not.toContain('alice');
  });

  it('a later call of the same user needs no new consent: the token near expiry is refreshed at B first', async () => {
    const before = (await (await fetch(`${a.http}/api/v1/connections`, { headers: { 'x-api-key': ALICE_KEY } })).json()) as any;
    expect(before.connections[0]).toMatchObject({ status: 'connected', refreshable: true });
    const r = await send(ALICE_KEY, 'second call');
    expect(r.body.result?.task?.status?.state).toBe('TASK_STATE_COMPLETED');
    const after = (await (await fetch(`${a.http}/api/v1/connections`, { headers: { 'x-api-key': ALICE_KEY } })).json()) as any;
    // Refreshed for this call (the first task's own call may have refreshed already: 60 s is within the margin).
    expect(Date.parse(after.connections[0].refreshedAt)).toBeGreaterThan(before.connections[0].refreshedAt ? Date.parse(before.connections[0].refreshedAt) : 0);
    expect(Date.parse(after.connections[0].expiresAt)).toBeGreaterThan(Date.parse(before.connections[0].expiresAt));
  });

  it('a second user of A is still asked to connect', async () => {
    const r = await send(CAROL_KEY, 'hello from carol');
    expect(r.body.result?.task?.status?.state).toBe('TASK_STATE_AUTH_REQUIRED');
    await rpc(`${a.http}/a2a/bee`, 'CancelTask', { id: r.body.result.task.id }, { 'x-api-key': CAROL_KEY });
  });

  it('lists the caller’s connections without tokens, and disconnects', async () => {
    const list = await fetch(`${a.http}/api/v1/connections`, { headers: { 'x-api-key': ALICE_KEY } });
    const raw = await list.text();
    expect(list.status).toBe(200);
    const body = JSON.parse(raw);
    expect(body.connections).toEqual([
      expect.objectContaining({ remote: 'bee', status: 'connected', remoteSubject: BEA.username, refreshable: true }),
      expect.objectContaining({ remote: 'bee-a2a', status: 'not-connected' }),
    ]);
    expect(raw).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./); // no JWT (access token) in the answer
    const carol = (await (await fetch(`${a.http}/api/v1/connections`, { headers: { 'x-api-key': CAROL_KEY } })).json()) as any;
    expect(carol.connections.map((c: any) => c.status)).toEqual(['not-connected', 'not-connected']);

    expect((await fetch(`${a.http}/api/v1/connections/bee`, { method: 'DELETE', headers: { 'x-api-key': ALICE_KEY } })).status).toBe(204);
    const r = await send(ALICE_KEY, 'after disconnect');
    expect(r.body.result?.task?.status?.state).toBe('TASK_STATE_AUTH_REQUIRED');
    await rpc(`${a.http}/a2a/bee`, 'CancelTask', { id: r.body.result.task.id }, { 'x-api-key': ALICE_KEY });
  });

  it('when B revokes the grant (its user deleted), the next call asks to connect again', async () => {
    // Connect alice again (she disconnected above), then B deletes its user: grants and tokens die.
    const asked = (await send(ALICE_KEY, 'reconnect')).body.result.task;
    expect(asked.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    expect((await connectInBrowser(connectUrlOf(asked), await signInToA(ALICE))).status).toBe(200);
    await waitFor(async () => ((await getTask(ALICE_KEY, asked.id)).body.result?.status?.state === 'TASK_STATE_COMPLETED' ? true : undefined));
    expect((await fetch(`${b.http}/api/v1/users/${BEA.username}`, { method: 'DELETE', headers: { 'x-api-key': B_ADMIN_KEY } })).status).toBe(204);

    const r = (await send(ALICE_KEY, 'after revocation')).body.result.task;
    expect(r.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    expect(connectUrlOf(r)).toContain('/connect/start?ticket=');
    // The refused tokens are gone from A's vault.
    const list = (await (await fetch(`${a.http}/api/v1/connections`, { headers: { 'x-api-key': ALICE_KEY } })).json()) as any;
    expect(list.connections.find((c: any) => c.remote === 'bee').status).toBe('not-connected');
    await rpc(`${a.http}/a2a/bee`, 'CancelTask', { id: r.id }, { 'x-api-key': ALICE_KEY });
  });

  it("B's A2A agent as a remote (remote: { cardUrl, auth: oauth }): the same connect, then the call as B's user", async () => {
    await createBea();
    const sendA2a = (text: string) => rpc(`${a.http}/a2a/bee-a2a`, 'SendMessage', { message: { messageId: `m-${randomBytes(6).toString('hex')}`, role: 'ROLE_USER', parts: [{ text }] } }, { 'x-api-key': ALICE_KEY });
    const asked = (await sendA2a('hello over a2a')).body.result.task;
    expect(asked.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    expect((await connectInBrowser(connectUrlOf(asked), await signInToA(ALICE))).status).toBe(200);
    const done = await waitFor(async () => {
      const t = (await rpc(`${a.http}/a2a/bee-a2a`, 'GetTask', { id: asked.id }, { 'x-api-key': ALICE_KEY })).body.result;
      return ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED'].includes(t?.status?.state) ? t : undefined;
    });
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    // B's echo task is owned by B's user: B lists it for bea only.
    const list = (await (await fetch(`${a.http}/api/v1/connections`, { headers: { 'x-api-key': ALICE_KEY } })).json()) as any;
    expect(list.connections.find((c: any) => c.remote === 'bee-a2a')).toMatchObject({ status: 'connected', remoteSubject: BEA.username });
  });

  it("A's audit log names the connections and B's user, never a token", async () => {
    const r = await fetch(`${a.http}/api/v1/audit?limit=500`, { headers: { 'x-api-key': A_ADMIN_KEY } });
    const raw = await r.text();
    expect(r.status).toBe(200);
    const records = (JSON.parse(raw) as any).records as any[];
    const connected = records.filter((x) => x.action === 'connection.connected');
    expect(connected.length).toBeGreaterThanOrEqual(2);
    expect(connected[0]).toMatchObject({ actor: 'alice', details: { remoteSubject: BEA.username } });
    expect(records.some((x) => x.action === 'connection.disconnected' && x.actor === 'alice' && x.target === 'agent:bee')).toBe(true);
    expect(raw).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./);
  });

  it("A's usage records name whom each call acted as at B (B's user and B's issuer), in JSON and CSV, never a token", async () => {
    // B's issuer as B itself publishes it (RFC 8414), not as A stored it.
    const issuer = ((await (await fetch(`${b.http}/.well-known/oauth-authorization-server`)).json()) as any).issuer as string;
    expect(issuer).toMatch(/^http/);
    const r = await fetch(`${a.http}/api/v1/usage?by=agent,subject,remoteSubject,remoteIssuer&agent=bee,bee-a2a&outcome=TASK_STATE_COMPLETED`, { headers: { 'x-api-key': A_ADMIN_KEY } });
    const raw = await r.text();
    expect(r.status, raw).toBe(200);
    const keys = (JSON.parse(raw) as any).groups.map((g: any) => g.key);
    expect(keys).toEqual(
      expect.arrayContaining([
        { agent: 'bee', subject: 'alice', remoteSubject: BEA.username, remoteIssuer: issuer },
        { agent: 'bee-a2a', subject: 'alice', remoteSubject: BEA.username, remoteIssuer: issuer },
      ]),
    );
    // Every completed call went out as B's user: none without a remote identity.
    expect(keys.filter((k: any) => k.remoteSubject !== BEA.username)).toEqual([]);
    expect(raw).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./);
    const csv = await (await fetch(`${a.http}/api/v1/usage?by=agent,remoteSubject&agent=bee&outcome=TASK_STATE_COMPLETED`, { headers: { 'x-api-key': A_ADMIN_KEY, accept: 'text/csv' } })).text();
    const [header, ...rows] = csv.trim().split('\r\n');
    expect(header!.split(',').slice(0, 2)).toEqual(['agent', 'remoteSubject']);
    expect(rows.map((x) => x.split(',').slice(0, 2))).toEqual([['bee', BEA.username]]);
  });

  it("A's audit log has the refresh B refused (the revoked grant), naming A's user, never a token", async () => {
    const records = ((await (await fetch(`${a.http}/api/v1/audit?limit=500`, { headers: { 'x-api-key': A_ADMIN_KEY } })).json()) as any).records as any[];
    expect(records).toContainEqual(expect.objectContaining({ action: 'connection.refresh_failed', outcome: 'failure', actor: 'system', target: 'agent:bee', details: { subject: 'alice', refused: true } }));
  });

  it("A's metrics count the refreshes B made and the refreshes B refused, per remote", async () => {
    const scrape = async () => parseExposition(await (await fetch(`${a.http}/metrics`, { headers: { 'x-api-key': A_ADMIN_KEY } })).text());
    // Independently: B's own audit log records every refresh it granted (token.refreshed), all of them bea's.
    const bRefreshes = async () =>
      ((await (await fetch(`${b.http}/api/v1/audit?limit=1000`, { headers: { 'x-api-key': B_ADMIN_KEY } })).json()) as any).records.filter((x: any) => x.action === 'token.refreshed').length as number;
    const m = await waitFor(async () => {
      const e = await scrape();
      const ours = sampleSum(e, 'agentport_remote_token_refreshes_total');
      return ours > 0 && ours === (await bRefreshes()) ? e : undefined;
    });
    expect(sampleSum(m, 'agentport_remote_token_refreshes_total', { remote: 'bee' })).toBeGreaterThanOrEqual(2);
    expect(sampleSum(m, 'agentport_remote_token_refreshes_total', { remote: 'bee-a2a' })).toBeGreaterThanOrEqual(1);
    const records = ((await (await fetch(`${a.http}/api/v1/audit?limit=500`, { headers: { 'x-api-key': A_ADMIN_KEY } })).json()) as any).records as any[];
    const refused = records.filter((x) => x.action === 'connection.refresh_failed' && x.target === 'agent:bee' && x.details?.refused === true).length;
    expect(refused).toBeGreaterThanOrEqual(1);
    expect(sampleSum(m, 'agentport_remote_token_refresh_failures_total', { remote: 'bee', reason: 'refused' })).toBe(refused);
    expect(sampleSum(m, 'agentport_remote_token_refresh_failures_total', { reason: 'error' })).toBe(0);
  });

  it('the cards of both remote-OAuth agents state what a connection made in AUTH_REQUIRED covers (A2A §7.6.4), as a data-only extension', async () => {
    for (const id of ['bee', 'bee-a2a']) {
      const card = (await (await fetch(`${a.http}/a2a/${id}/.well-known/agent-card.json`)).json()) as any;
      const ext = (card.capabilities.extensions ?? []).find((e: any) => e.uri === 'urn:agentport:a2a:ext:in-task-authorization-scope:v1');
      // Not required (ProtoJSON leaves a false `required` out): a client needs nothing to honour it.
      expect(ext?.required ?? false, id).toBe(false);
      expect(ext, id).toMatchObject({ params: { boundTo: ['user', 'remote'], covers: ['later-messages', 'later-tasks'], until: ['disconnected', 'refused-by-remote', 'expired-without-refresh'] } });
      expect(ext.description).toContain('TASK_STATE_AUTH_REQUIRED');
      expect(ext.description).toContain(new URL(b.http).host);
      expect(ext.description).toContain('until it is revoked');
    }
    // An agent that never asks a user to connect states nothing of the kind.
    const plain = (await (await fetch(`${b.http}/a2a/echo/.well-known/agent-card.json`)).json()) as any;
    expect((plain.capabilities.extensions ?? []).map((e: any) => e.uri)).not.toContain('urn:agentport:a2a:ext:in-task-authorization-scope:v1');
  });

  it('refuses a forged or altered connect link', async () => {
    const r = await fetch(`${a.http}/connect/start?ticket=v1.k1.AAAA.BBBB`, { redirect: 'manual' });
    expect(r.status).toBe(400);
    expect(await r.text()).toContain('not valid');
  });
});
