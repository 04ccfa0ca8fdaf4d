/**
 * Credentials against an Agentport that requires them: API key and bearer on every binding, a
 * spec-shaped Unauthenticated without them, and OAuth client credentials against a real token
 * endpoint (a minimal RFC 6749 §4.4 one started here, issuing HS256 JWTs that the server verifies
 * with its `auth.sharedSecret`): the token is fetched once, renewed before it expires, and replaced
 * once when the server refuses it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, A2AClientError, apiKeyAuth, bearerAuth, ClientCredentialsAuth, OAuthTokenError, textMessage, type Binding } from '../../src/client/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { PROBE_MODULE } from './support.js';

const API_KEY = 'client-test-key-0123456789';
const SECRET = 'a-shared-secret-of-at-least-32-characters!';
const AUDIENCE = 'agentport-client-tests';
const SCOPES = ['a2a:discover', 'a2a:publish'];

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({
    agents: [{ id: 'probe', module: PROBE_MODULE }],
    auth: { mode: 'required', apiKeys: [{ key: API_KEY, subject: 'alice', scopes: SCOPES }], sharedSecret: { secret: SECRET, audience: AUDIENCE } },
  });
});
afterAll(() => s?.stop());

const BINDINGS: Binding[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];

describe.each(BINDINGS)('on %s', (binding) => {
  it('an API key is accepted; no credential is Unauthenticated', async () => {
    const ok = await A2AClient.connect(`${s.http}/a2a/probe`, { bindings: [binding], auth: apiKeyAuth(API_KEY) });
    const r = await ok.sendMessage({ message: textMessage('hi') });
    expect('task' in r && r.task.status.state).toBe('TASK_STATE_COMPLETED');
    ok.close();
    const anonymous = await A2AClient.connect(`${s.http}/a2a/probe`, { bindings: [binding] });
    const err = await anonymous.sendMessage({ message: textMessage('hi') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(A2AClientError);
    expect((err as A2AClientError).kind).toBe('Unauthenticated');
    expect((err as A2AClientError).isUnauthenticated).toBe(true);
    anonymous.close();
  });

  it('the same key as a bearer token is accepted', async () => {
    const c = await A2AClient.connect(`${s.http}/a2a/probe`, { bindings: [binding], auth: bearerAuth(API_KEY) });
    const r = await c.sendMessage({ message: textMessage('hi') });
    expect('task' in r && r.task.status.state).toBe('TASK_STATE_COMPLETED');
    c.close();
  });
});

/** RFC 6749 §4.4 token endpoint: Basic client auth, form body, JSON answer. */
async function startTokenEndpoint(opts: { lifetimeS: number; badFirst?: boolean }) {
  const issued: Array<{ grantType: string | null; scope: string | null }> = [];
  const server = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const form = new URLSearchParams(body);
    const basic = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
    res.setHeader('content-type', 'application/json');
    if (basic !== 'cli-client:cli-secret' || form.get('grant_type') !== 'client_credentials') {
      res.statusCode = 401;
      res.end(JSON.stringify({ error: 'invalid_client' }));
      return;
    }
    issued.push({ grantType: form.get('grant_type'), scope: form.get('scope') });
    const key = opts.badFirst && issued.length === 1 ? 'not-the-secret-the-server-knows-at-all!!' : SECRET;
    const token = await new SignJWT({ scope: form.get('scope') ?? '' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('cli-client')
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + opts.lifetimeS)
      .sign(new TextEncoder().encode(key));
    res.end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: opts.lifetimeS }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/token`, issued, close: () => new Promise((r) => server.close(r)) };
}

describe('OAuth client credentials', () => {
  it('fetches one token for many calls and renews it before it expires', async () => {
    const endpoint = await startTokenEndpoint({ lifetimeS: 3600 });
    let clock = Date.now();
    const auth = new ClientCredentialsAuth({ tokenUrl: endpoint.url, clientId: 'cli-client', clientSecret: 'cli-secret', scope: SCOPES, now: () => clock });
    const c = await A2AClient.connect(`${s.http}/a2a/probe`, { auth });
    try {
      await Promise.all([1, 2, 3].map((i) => c.sendMessage({ message: textMessage(`call ${i}`) })));
      expect(auth.tokensIssued).toBe(1);
      expect(endpoint.issued).toEqual([{ grantType: 'client_credentials', scope: 'a2a:discover a2a:publish' }]);
      clock += 3600_000 - 10_000; // inside the 30 s renewal margin
      await c.sendMessage({ message: textMessage('later') });
      expect(auth.tokensIssued).toBe(2);
    } finally {
      c.close();
      await endpoint.close();
    }
  });

  it('replaces a token the server refuses, once, and the call succeeds', async () => {
    const endpoint = await startTokenEndpoint({ lifetimeS: 3600, badFirst: true });
    const auth = new ClientCredentialsAuth({ tokenUrl: endpoint.url, clientId: 'cli-client', clientSecret: 'cli-secret', scope: SCOPES });
    const c = await A2AClient.connect(`${s.http}/a2a/probe`, { bindings: ['GRPC'], auth });
    try {
      const r = await c.sendMessage({ message: textMessage('after refresh') });
      expect('task' in r && r.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(auth.tokensIssued).toBe(2);
    } finally {
      c.close();
      await endpoint.close();
    }
  });

  it('reports a refused client as an OAuthTokenError with the OAuth error code', async () => {
    const endpoint = await startTokenEndpoint({ lifetimeS: 60 });
    const auth = new ClientCredentialsAuth({ tokenUrl: endpoint.url, clientId: 'cli-client', clientSecret: 'wrong' });
    const c = await A2AClient.connect(`${s.http}/a2a/probe`, { auth });
    const err = await c.getTask({ id: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OAuthTokenError);
    expect((err as OAuthTokenError).error).toBe('invalid_client');
    expect((err as OAuthTokenError).status).toBe(401);
    await endpoint.close();
  });
});
