/**
 * No secret reaches the log (issue 14, item 3). One distributed server (PostgreSQL and Redis, both
 * URLs with a password) logs at `trace` into a capture while every path that carries a secret is
 * driven: configured and stored API keys (good and bad), a shared-secret JWT, OAuth client secrets
 * and the token exchange (JSON and form with Basic), bearer tokens, a local user's password and
 * the console's session cookie, push configs with a token and credentials delivered to a failing
 * receiver, an audit webhook with an Authorization header that fails, and remote agents whose
 * URLs carry passwords and cannot be reached. Then no captured line may hold any of the secrets,
 * nor anything shaped like an API key, a JWT or a bearer token, nor a URL password.
 *
 * The whole test run is searched as well (test/support/log-secrets-check.ts); this test is the
 * one that makes sure every secret-carrying path has logged something at the most verbose level.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { SignJWT } from 'jose';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar } from '../../auth/oauth/support.js';
import { SECRET_SHAPES } from '../../support/known-secrets.js';
import { rpc, startTestServer, userMessage, type TestServer } from '../../support/server.js';
import { captureLog } from './capture.js';

const PG = new URL(process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test');
const REDIS = new URL(process.env.AGENTPORT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
const run = `secrets_${randomBytes(4).toString('hex')}`;

/** Every secret the server is given or hands out; none may appear in a log line. */
const SECRETS = {
  pgPassword: 'Pg-Url-Password-8c1f',
  redisPassword: 'Redis-Url-Password-5e2a',
  configKey: 'Config-Admin-Key-3b7d-0001',
  sharedSecret: 'Shared-Jwt-Secret-9a4c-0123456789abcdef',
  auditToken: 'Audit-Webhook-Token-77f0',
  remoteCardPassword: 'Remote-Card-Url-Pw-2d9e',
  remoteHeader: 'Remote-Agent-Header-Token-41aa',
  mcpPassword: 'Mcp-Url-Password-6c3b',
  mcpHeader: 'Mcp-Remote-Bearer-Token-0f9e',
  upstreamSecret: 'Upstream-Client-Secret-1b8d',
  pushToken: 'Push-Notification-Token-5d21',
  pushCredentials: 'Push-Auth-Credentials-c4e7',
  cookie: 'Cookie-Value-Secret-a9b3',
  wrongPassword: 'Wrong-Password-Attempt-88e1',
  wrongClientSecret: 'Wrong-Client-Secret-3f1c',
};

async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** Answers 500 to everything: push deliveries are retried, audit forwarding fails. */
async function failingReceiver(): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits++;
    req.resume();
    req.on('end', () => res.writeHead(500).end('no'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => hits,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

describe('secrets in logs', () => {
  const log = captureLog();
  const handedOut: string[] = [];
  let s: TestServer;
  let receiver: Awaited<ReturnType<typeof failingReceiver>>;

  beforeAll(async () => {
    receiver = await failingReceiver();
    const closed = await closedPort();
    const pgUrl = new URL(PG);
    pgUrl.password = SECRETS.pgPassword;
    const redisUrl = new URL(REDIS);
    redisUrl.username = 'default';
    redisUrl.password = SECRETS.redisPassword;
    s = await startTestServer(
      {
        server: { logLevel: 'trace' },
        storage: { driver: 'postgres', url: pgUrl.toString(), schema: run },
        bus: { driver: 'redis', url: redisUrl.toString(), prefix: run },
        logging: { accessLog: true },
        auth: {
          mode: 'required',
          apiKeys: [{ key: SECRETS.configKey, subject: 'ops', scopes: ['admin', 'a2a:discover', 'a2a:publish'] }],
          sharedSecret: { secret: SECRETS.sharedSecret, issuer: 'minter', audience: 'agentport-hs' },
          oauth: { upstream: { issuer: `http://127.0.0.1:${closed}/idp`, clientId: 'agentport', clientSecret: SECRETS.upstreamSecret, allowHosts: ['127.0.0.1'] } },
        },
        push: { allowHttp: true, allowlist: ['127.0.0.1'] },
        audit: { webhook: { url: `${receiver.url}/siem`, headers: { Authorization: `Bearer ${SECRETS.auditToken}` } } },
        agents: [
          { id: 'echo', builtin: 'echo' },
          { id: 'far', remote: { cardUrl: `http://card:${SECRETS.remoteCardPassword}@127.0.0.1:${closed}/card.json`, headers: { 'X-Api-Key': SECRETS.remoteHeader }, allowlist: ['127.0.0.1'] } },
          { id: 'tools', mcp: { url: `http://mcp:${SECRETS.mcpPassword}@127.0.0.1:${closed}/mcp`, headers: { Authorization: `Bearer ${SECRETS.mcpHeader}` }, allowlist: ['127.0.0.1'] } },
        ],
        primaryAgent: 'echo',
      },
      { services: { logDestination: log } },
    );
  });

  afterAll(async () => {
    await s?.stop();
    await receiver?.close();
    const client = new pg.Client({ connectionString: PG.toString() });
    await client.connect();
    await client.query(`drop schema if exists "${run}" cascade`);
    await client.end();
  });

  const admin = { 'content-type': 'application/json', 'x-api-key': SECRETS.configKey };

  it('drives every secret-carrying path at trace level, and no line holds a secret', async () => {
    // A stored API key: created, used as X-API-Key and as a bearer token; a forged one with its key id.
    const created = await fetch(`${s.http}/api/v1/keys`, { method: 'POST', headers: admin, body: JSON.stringify({ subject: 'robot', scopes: ['a2a:discover', 'a2a:publish'] }) });
    expect(created.status).toBe(201);
    const { key } = (await created.json()) as { key: string };
    handedOut.push(key);
    expect((await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('with a stored key') }, { 'x-api-key': key })).status).toBe(200);
    expect((await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('as bearer') }, { authorization: `Bearer ${key}` })).status).toBe(200);
    const forged = `${key.slice(0, 20)}${'x'.repeat(key.length - 20)}`;
    handedOut.push(forged);
    expect((await rpc(`${s.http}/a2a/echo`, 'GetTask', { id: 't' }, { 'x-api-key': forged })).status).toBe(401);
    expect((await rpc(`${s.http}/a2a/echo`, 'GetTask', { id: 't' }, { 'x-api-key': 'Unknown-Key-Value-0042' })).status).toBe(401);
    handedOut.push('Unknown-Key-Value-0042');

    // A shared-secret JWT, good and signed with the wrong secret.
    const mint = (secret: string) =>
      new SignJWT({ scope: 'a2a:discover a2a:publish' })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer('minter')
        .setAudience('agentport-hs')
        .setSubject('jwt-user')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(secret));
    const jwt = await mint(SECRETS.sharedSecret);
    const badJwt = await mint('Not-The-Shared-Secret-At-All-0123456789');
    handedOut.push(jwt, badJwt);
    expect((await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('jwt') }, { authorization: `Bearer ${jwt}` })).status).toBe(200);
    expect((await rpc(`${s.http}/a2a/echo`, 'GetTask', { id: 't' }, { authorization: `Bearer ${badJwt}` })).status).toBe(401);

    // OAuth: a machine client's secret, the token exchange (JSON, and a form with Basic), its access token, a wrong secret.
    const c = await fetch(`${s.http}/api/v1/clients`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'script', kind: 'machine', scopes: ['a2a:discover', 'a2a:publish'] }) });
    expect(c.status).toBe(201);
    const { client, clientSecret } = (await c.json()) as { client: { clientId: string }; clientSecret: string };
    handedOut.push(clientSecret);
    const tokenJson = await fetch(`${s.http}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: clientSecret, scope: 'a2a:discover a2a:publish' }),
    });
    expect(tokenJson.status).toBe(200);
    const { access_token } = (await tokenJson.json()) as { access_token: string };
    handedOut.push(access_token);
    const basic = Buffer.from(`${client.clientId}:${clientSecret}`).toString('base64');
    const tokenForm = await fetch(`${s.http}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
      body: 'grant_type=client_credentials&scope=a2a%3Adiscover',
    });
    expect(tokenForm.status).toBe(200);
    handedOut.push(((await tokenForm.json()) as { access_token: string }).access_token);
    expect((await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('oauth') }, { authorization: `Bearer ${access_token}` })).status).toBe(200);
    const wrong = await fetch(`${s.http}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=${client.clientId}&client_secret=${SECRETS.wrongClientSecret}`,
    });
    expect(wrong.status).toBe(401);

    // A local user's password: created, signed in on the console (its session cookie used), and a wrong one.
    const u = await fetch(`${s.http}/api/v1/users`, { method: 'POST', headers: admin, body: JSON.stringify({ username: 'carol', scopes: ['admin'] }) });
    expect(u.status).toBe(201);
    const { password } = (await u.json()) as { password: string };
    handedOut.push(password);
    const jar = new CookieJar();
    const form = await fetch(`${s.http}/mcp/config/`, { headers: { cookie: `probe=${SECRETS.cookie}` } });
    jar.take(form);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
    const login = (pw: string) =>
      fetch(`${s.http}/mcp/config/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: `${jar.header()}; probe=${SECRETS.cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf, username: 'carol', password: pw }),
      });
    expect((await login(SECRETS.wrongPassword)).status).not.toBe(303);
    const signedIn = await login(password);
    expect(signedIn.status).toBe(303);
    jar.take(signedIn);
    const session = jar.header();
    handedOut.push(
      ...session
        .split('; ')
        .map((kv) => kv.slice(kv.indexOf('=') + 1))
        .filter((v) => v.length >= 16),
    );
    expect((await fetch(`${s.http}/mcp/config/`, { headers: { cookie: session } })).status).toBe(200);

    // Push configs with a token and credentials, delivered to a receiver that fails (retries are logged at debug).
    const pushed = await rpc(
      `${s.http}/a2a/echo`,
      'SendMessage',
      {
        message: userMessage('push me'),
        configuration: { taskPushNotificationConfig: { url: `${receiver.url}/hook`, token: SECRETS.pushToken, authentication: { scheme: 'Bearer', credentials: SECRETS.pushCredentials } } },
      },
      { 'x-api-key': key },
    );
    expect(pushed.status).toBe(200);
    const taskId = pushed.body.result.task.id as string;
    const added = await rpc(
      `${s.http}/a2a/echo`,
      'CreateTaskPushNotificationConfig',
      { taskId, url: `${receiver.url}/second`, token: SECRETS.pushToken, authentication: { scheme: 'Basic', credentials: SECRETS.pushCredentials } },
      { 'x-api-key': key },
    );
    expect(added.status).toBe(200);
    await expect.poll(() => log.lines.some((l) => l.includes('push delivery will be retried')), { timeout: 10_000 }).toBe(true);

    // The remote agents' failures (URLs with passwords, unreachable), the audit webhook's failed forwarding.
    await rpc(`${s.http}/a2a/far`, 'SendMessage', { message: userMessage('remote') }, { 'x-api-key': key });
    await rpc(`${s.http}/a2a/tools`, 'SendMessage', { message: userMessage('mcp') }, { 'x-api-key': key });
    await s.audit.flush();
    await expect.poll(() => receiver.hits(), { timeout: 10_000 }).toBeGreaterThan(1);

    // What was logged: every secret-carrying path left lines (so the search below means something)…
    const text = log.lines.join('');
    const access = log.records().filter((r) => r.module === 'access');
    expect(access.map((r) => `${r.status} ${r.operation}`)).toEqual(
      expect.arrayContaining([
        '201 POST /api/v1/keys',
        '401 POST /a2a/echo',
        '200 POST /oauth/token',
        '401 POST /oauth/token',
        '401 POST /mcp/config/login',
        '303 POST /mcp/config/login',
        '200 CreateTaskPushNotificationConfig',
      ]),
    );
    expect(text).toContain('remote a2a: card not available at start');
    expect(text).toContain('mcp remote: not reachable at start');
    expect(text).toMatch(/"level":20[^\n]*push delivery will be retried/);
    if (s.firstAdminUser) handedOut.push(s.firstAdminUser.password);
    if (s.firstAdminKey) handedOut.push(s.firstAdminKey);

    // …and none of them holds a secret, by value or by shape.
    const secrets = [...Object.values(SECRETS), ...handedOut];
    const leaks = log.lines.flatMap((line, i) => secrets.filter((secret) => line.includes(secret)).map((secret) => `line ${i + 1} holds ${secret}: ${line}`));
    expect(leaks).toEqual([]);
    expect(log.lines.filter((line) => SECRET_SHAPES.some(([, shape]) => shape.test(line)))).toEqual([]);
  });
});
