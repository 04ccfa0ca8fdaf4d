/**
 * What a self-made API key stands on (issue 25, K4), replaying the red-team's steps on a real
 * server: a member's key made in the console ends when the member is deleted (and stays ended when
 * the name is taken again), holds no more than the member holds after a scope cut, and a
 * third-party app the member authorized cannot mint keys for them; a key an administrator mints
 * through another app ends with that app's grant, and the consent page says the app may. An OAuth
 * client's own token (client credentials) cannot mint keys either (issue 30). Each step audited.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browse, startOAuthServer, type BrowserResult } from '../../auth/oauth/support.js';
import { userMessage } from '../../core/tasks/engine-harness.js';
import { consoleSignIn } from '../../console/console-code-flow.js';
import { rpc, type TestServer } from '../../support/server.js';

const password = (n: number) => `standing member password ${n}`;
const member = (username: string, scopes: string[], n: number) => ({ username, password: password(n), scopes });
const GONE = member('gwen', ['a2a:discover', 'a2a:publish'], 1);
const CUT = member('cora', ['a2a:discover', 'a2a:publish'], 2);
const APP_USER = member('ali', ['a2a:discover', 'a2a:publish'], 3);
const ADMIN = member('ada', ['a2a:discover', 'a2a:publish', 'admin'], 4);
const REDIRECT = 'http://127.0.0.1:53682/callback';

let s: TestServer;
let admin: Record<string, string>;

beforeAll(async () => {
  s = await startOAuthServer({}, [GONE, CUT, APP_USER, ADMIN]);
  admin = { 'x-api-key': s.firstAdminKey! };
}, 60_000);
afterAll(async () => s?.stop());

async function call(method: string, p: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${s.http}${p}`, {
    method,
    headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function consoleOf(user: { username: string; password: string }): Promise<Record<string, string>> {
  const c = await consoleSignIn(s.http, async (url, redirect) => (await browse(s, url, { redirectPrefix: redirect, user })).callback);
  return { cookie: c.cookie, 'x-csrf-token': c.csrf };
}

async function audit(query: string): Promise<Array<{ action: string; actor: string; actorClient?: string; target?: string; details?: Record<string, unknown> }>> {
  await s.audit.flush();
  return ((await (await fetch(`${s.http}/api/v1/audit?${query}`, { headers: admin })).json()) as { records: [] }).records;
}

const send = (key: string, text: string) => rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage(text) }, { 'x-api-key': key });

/** A registered third-party app signs `user` in with `scope` (whole-server audience) and redeems the code. */
async function appToken(user: { username: string; password: string }, scope: string): Promise<{ accessToken: string; consent: string; clientId: string }> {
  const reg = await call('POST', '/api/v1/clients', admin, { name: 'Helpful third-party app', kind: 'public', redirectUris: [REDIRECT] });
  expect(reg.status).toBe(201);
  const clientId = reg.body.client.clientId as string;
  const verifier = randomBytes(32).toString('base64url');
  const { createHash } = await import('node:crypto');
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope,
    state: 'st',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  const r: BrowserResult = await browse(s, `${s.http}/oauth/authorize?${q}`, { redirectPrefix: REDIRECT, user });
  const code = r.callback?.searchParams.get('code');
  expect(code, JSON.stringify(r.stoppedAt)).toBeTruthy();
  const res = await fetch(`${s.http}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: code!, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier }),
  });
  const tokens = (await res.json()) as { access_token: string; scope?: string };
  expect(res.status, JSON.stringify(tokens)).toBe(200);
  return { accessToken: tokens.access_token, consent: r.pages.find((p) => p.includes('Allow')) ?? '', clientId };
}

describe('a self-made API key stands on its owner and its grant (K4)', () => {
  it('deleting the member revokes their keys: SendMessage → 401, listed revoked, audited; a new user of the same name does not revive them', async () => {
    const console = await consoleOf(GONE);
    const made = await call('POST', '/api/v1/keys', console, { scopes: ['a2a:discover', 'a2a:publish'], expiresAt: '2999-01-01T00:00:00Z' });
    expect(made.status).toBe(201);
    expect((await send(made.body.key, 'before')).status).toBe(200);

    expect((await call('DELETE', `/api/v1/users/${GONE.username}`, admin)).status).toBe(204);
    const after = await send(made.body.key, 'after deletion');
    expect(after.status).toBe(401);
    const listed = (await call('GET', '/api/v1/keys', admin)).body.keys.find((k: { id: string }) => k.id === made.body.id);
    expect(listed.status).toBe('revoked');
    expect((await audit(`action=apikey.revoked&target=apikey:${made.body.id}`)).at(-1)).toMatchObject({ details: { reason: 'owner deleted', owner: GONE.username } });

    // Someone else gets the name: the old key is not theirs.
    expect((await call('POST', '/api/v1/users', admin, { username: GONE.username, password: password(9), scopes: ['a2a:discover', 'a2a:publish'] })).status).toBe(201);
    expect((await send(made.body.key, 'after the name was taken again')).status).toBe(401);
  });

  it("cutting the member's scopes caps their keys at once (403), and the key keeps what the member still holds", async () => {
    const console = await consoleOf(CUT);
    const made = await call('POST', '/api/v1/keys', console, { scopes: ['a2a:discover', 'a2a:publish'] });
    expect(made.status).toBe(201);
    expect((await send(made.body.key, 'before')).status).toBe(200);

    expect((await call('PATCH', `/api/v1/users/${CUT.username}`, admin, { scopes: ['a2a:discover'] })).status).toBe(200);
    const capped = await send(made.body.key, 'after the cut');
    expect(capped.status).toBe(403);
    // a2a:discover is still theirs: the extended card answers.
    expect((await fetch(`${s.http}/a2a/echo/extendedAgentCard`, { headers: { 'x-api-key': made.body.key, 'a2a-version': '1.0' } })).status).toBe(200);
  });

  it('a third-party app the member consented to a2a:publish cannot mint keys for them (403, audited)', async () => {
    const app = await appToken(APP_USER, 'a2a:discover a2a:publish');
    expect(app.consent).not.toContain('create API keys');
    const minted = await call('POST', '/api/v1/keys', { authorization: `Bearer ${app.accessToken}` }, { expiresAt: '2999-01-01T00:00:00Z', usecase: 'demo' });
    expect(minted.status).toBe(403);
    expect(JSON.stringify(minted.body)).toContain('app you authorized cannot create API keys');
    const own = (await call('GET', '/api/v1/keys', admin)).body.keys.filter((k: { subject: string }) => k.subject === APP_USER.username);
    expect(own).toEqual([]);
    expect((await audit(`action=authz.denied&actor=${APP_USER.username}`)).at(-1)).toMatchObject({ actorClient: app.clientId, details: { operation: 'create-own-apikey' } });
  });

  it("a key an administrator mints through a third-party app ends with that app's grant; the consent page said the app may", async () => {
    const app = await appToken(ADMIN, 'a2a:discover a2a:publish admin');
    expect(app.consent).toContain('will be able to create API keys');
    const made = await call('POST', '/api/v1/keys', { authorization: `Bearer ${app.accessToken}` }, { scopes: ['a2a:publish'] });
    expect(made.status).toBe(201);
    expect((await send(made.body.key, 'before')).status).toBe(200);
    const created = (await audit(`action=apikey.created&target=apikey:${made.body.id}`)).at(-1);
    expect(created?.details).toMatchObject({ owner: ADMIN.username, grantId: expect.any(String) });

    const grants = (await call('GET', `/api/v1/users/${ADMIN.username}/grants`, admin)).body.grants as Array<{ id: string; clientId: string }>;
    const grant = grants.find((g) => g.clientId === app.clientId)!;
    expect((await call('DELETE', `/api/v1/users/${ADMIN.username}/grants/${grant.id}`, admin)).status).toBe(204);
    expect((await send(made.body.key, 'after the grant was revoked')).status).toBe(401);
  });

  it("an OAuth client's own token (client credentials) is not allowed to mint API keys (issue 30)", async () => {
    const machine = await call('POST', '/api/v1/clients', admin, { name: 'ci machine', kind: 'machine', scopes: ['a2a:discover', 'a2a:publish'] });
    expect(machine.status).toBe(201);
    const res = await fetch(`${s.http}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${machine.body.client.clientId}:${machine.body.clientSecret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'a2a:discover a2a:publish' }),
    });
    const token = ((await res.json()) as { access_token: string }).access_token;
    expect(res.status).toBe(200);
    const minted = await call('POST', '/api/v1/keys', { authorization: `Bearer ${token}` }, { scopes: ['a2a:publish'] });
    expect(minted.status).toBe(403);
    expect(JSON.stringify(minted.body)).toContain('cannot create API keys');
    expect((await call('GET', '/api/v1/keys', admin)).body.keys.some((k: { subject: string }) => k.subject === `client:${machine.body.client.clientId}`)).toBe(false);
  });
});
