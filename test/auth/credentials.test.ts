/**
 * Each credential type, over real HTTP against a running server, maps to the right Principal;
 * the mapping is observed through owner scoping (a task made by one subject is not-found to another).
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueAccessToken } from '../../src/auth/access-tokens.js';
import { createApiKey } from '../../src/auth/api-keys.js';
import { KeyStore } from '../../src/core/keys/key-store.js';
import { openSqliteStore } from '../../src/store/index.js';
import { rpc, startTestServer, userMessage, type TestServer } from '../support/server.js';
import { bearer, canRead, createTask, expectRefused, startLoopbackIssuer, type LoopbackIssuer } from './support.js';

const CONFIG_KEY = 'cfg-0123456789abcdef';
const SECRET = randomBytes(32).toString('base64url');
const DAY = 86_400_000;

let s: TestServer;
let idp: LoopbackIssuer;
let keys: KeyStore;
const stored: Record<'alice' | 'revoked' | 'expired' | 'sales', string> = { alice: '', revoked: '', expired: '', sales: '' };

beforeAll(async () => {
  idp = await startLoopbackIssuer();
  s = await startTestServer({
    auth: {
      apiKeys: [{ key: CONFIG_KEY, subject: 'ops', scopes: ['admin'] }],
      issuers: [{ issuer: idp.issuer, audience: 'agentport-test' }],
      sharedSecret: { secret: SECRET, issuer: 'minter', audience: 'agentport-hs' },
      clockSkewSeconds: 5,
    },
  });
  // The server's own signing key, read from its data directory as a second KeyStore.
  keys = new KeyStore({ dataDir: s.dataDir });
  const store = await openSqliteStore({ file: join(s.dataDir, 'agentport.db'), checkpointThread: false });
  try {
    const now = Date.now();
    const make = async (name: keyof typeof stored, o: Parameters<typeof createApiKey>[0], revoke = false) => {
      const k = createApiKey(o);
      await store.putApiKey(k.record);
      if (revoke) await store.revokeApiKey(k.record.keyId, now);
      stored[name] = k.key;
    };
    await make('alice', { subject: 'alice', scopes: ['a2a:discover', 'a2a:publish'], expiresAt: now + DAY });
    await make('revoked', { subject: 'alice' }, true);
    await make('expired', { subject: 'alice', expiresAt: now - 1000, now: now - DAY });
    await make('sales', { subject: 'bob', usecase: 'sales' });
  } finally {
    await store.close();
  }
});

afterAll(async () => {
  await s?.stop();
  await idp?.close();
});

const ownToken = (subject: string, o: Partial<Parameters<typeof issueAccessToken>[1]> = {}) => issueAccessToken(keys, { issuer: s.http, audience: s.http, subject, scopes: ['a2a:publish'], ...o });
const hsToken = (claims: Record<string, unknown>, o: { secret?: string; exp?: number } = {}) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime(o.exp ?? Math.floor(Date.now() / 1000) + 300)
    .sign(new TextEncoder().encode(o.secret ?? SECRET));

describe('no credential', () => {
  it('is the anonymous caller: allowed, and its tasks are not visible to an authenticated subject', async () => {
    const id = await createTask(s.http, {});
    expect(await canRead(s.http, id, {})).toBe(true);
    expect(await canRead(s.http, id, { 'x-api-key': CONFIG_KEY })).toBe(false);
  });
});

describe('config API keys', () => {
  it('keep working as Bearer and as X-API-Key, as their subject', async () => {
    const id = await createTask(s.http, bearer(CONFIG_KEY));
    expect(await canRead(s.http, id, { 'x-api-key': CONFIG_KEY })).toBe(true);
    expect(await canRead(s.http, id, bearer(stored.alice))).toBe(false);
  });

  it('refuses a key that is none of them', async () => {
    expect(await expectRefused(s.http, bearer('not-a-known-key-at-all'))).toBe('The credential presented is not valid');
  });
});

describe('stored API keys', () => {
  it('authenticate as their subject', async () => {
    const id = await createTask(s.http, bearer(stored.alice));
    expect(await canRead(s.http, id, { 'x-api-key': stored.alice })).toBe(true);
    expect(await canRead(s.http, id, bearer(stored.sales))).toBe(false);
    // the same subject through another credential type is the same owner
    expect(await canRead(s.http, id, bearer(await ownToken('alice')))).toBe(true);
  });

  it('refuse a revoked key, an expired key, a wrong secret and an unknown id', async () => {
    expect(await expectRefused(s.http, bearer(stored.revoked))).toBe('The API key has been revoked');
    expect(await expectRefused(s.http, bearer(stored.expired))).toBe('The API key has expired');
    const wrongSecret = stored.alice.slice(0, -4) + (stored.alice.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect(await expectRefused(s.http, bearer(wrongSecret))).toBe('The API key is not valid');
    expect(await expectRefused(s.http, bearer(createApiKey({ subject: 'x' }).key))).toBe('The API key is not valid');
    expect(await expectRefused(s.http, bearer('ap_short'))).toBe('The API key is malformed');
  });
});

describe('Agentport-issued bearer tokens (ES256, own KeyStore)', () => {
  it('authenticate as their subject', async () => {
    const id = await createTask(s.http, bearer(await ownToken('carol')));
    expect(await canRead(s.http, id, bearer(await ownToken('carol')))).toBe(true);
    expect(await canRead(s.http, id, bearer(await ownToken('dave')))).toBe(false);
  });

  it('refuse expired, not-yet-valid (beyond the skew), wrong-audience and tampered tokens', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(await expectRefused(s.http, bearer(await ownToken('carol', { issuedAt: now - 600, ttlSeconds: 60 })))).toBe('The bearer token has expired');
    expect(await expectRefused(s.http, bearer(await ownToken('carol', { notBefore: now + 120 })))).toBe('The bearer token is not valid yet');
    expect(await expectRefused(s.http, bearer(await ownToken('carol', { audience: 'https://elsewhere.example' })))).toBe('The bearer token is for another audience');
    const [h, p, sig] = (await ownToken('carol')).split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: 'mallory' })).toString('base64url')}.${sig}`;
    expect(await expectRefused(s.http, bearer(tampered))).toBe('The bearer token signature is not valid');
  });

  it('accept a token expired by less than the configured clock skew', async () => {
    const now = Math.floor(Date.now() / 1000);
    await createTask(s.http, bearer(await ownToken('carol', { issuedAt: now - 62, ttlSeconds: 60 })));
  });

  it('refuse a JWT signed by the same key without typ at+jwt (a push-notification JWT is not an access token)', async () => {
    const key = await keys.getSigningKey();
    const jwt = await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' }).setIssuer(s.http).setAudience(s.http).setSubject('carol').setExpirationTime('5m').sign(key.privateKey);
    expect(await expectRefused(s.http, bearer(jwt))).toBe('The bearer token is not an access token');
  });

  it('refuse alg none and a token from an issuer that is not configured', async () => {
    const none = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify({ iss: s.http, sub: 'x', aud: s.http, exp: 9e9 })).toString('base64url')}.`;
    expect(await expectRefused(s.http, bearer(none))).toBe('The bearer token is not signed');
    const stranger = await startLoopbackIssuer();
    try {
      expect(await expectRefused(s.http, bearer(await stranger.sign({ sub: 'x', aud: 'agentport-test', iss: stranger.issuer })))).toBe('The token issuer is not trusted');
    } finally {
      await stranger.close();
    }
  });
});

describe('external issuers (OIDC discovery + JWKS on a loopback server)', () => {
  it('authenticate as the issuer-qualified subject, with scopes from scp', async () => {
    const token = await idp.sign({ sub: 'erin', aud: 'agentport-test', iss: idp.issuer, scp: ['a2a:publish'] });
    const id = await createTask(s.http, bearer(token));
    expect(await canRead(s.http, id, bearer(await idp.sign({ sub: 'erin', aud: 'agentport-test', iss: idp.issuer })))).toBe(true);
    expect(await canRead(s.http, id, bearer(await idp.sign({ sub: 'frank', aud: 'agentport-test', iss: idp.issuer })))).toBe(false);
    // `erin` at the IdP is not a local `erin`
    expect(await canRead(s.http, id, bearer(await ownToken('erin')))).toBe(false);
    expect(idp.hits['/.well-known/openid-configuration']).toBe(1);
    expect(idp.hits['/jwks']).toBeGreaterThanOrEqual(1);
  });

  it('refuse wrong audience, expired, another key, and an HS256 token claiming the issuer', async () => {
    expect(await expectRefused(s.http, bearer(await idp.sign({ sub: 'erin', aud: 'other', iss: idp.issuer })))).toBe('The bearer token is for another audience');
    expect(await expectRefused(s.http, bearer(await idp.sign({ sub: 'erin', aud: 'agentport-test', iss: idp.issuer }, { expiresIn: Math.floor(Date.now() / 1000) - 60 })))).toBe('The bearer token has expired');
    const other = await startLoopbackIssuer();
    try {
      const forged = await other.sign({ sub: 'erin', aud: 'agentport-test', iss: idp.issuer });
      expect(await expectRefused(s.http, bearer(forged))).toBe('The bearer token signature is not valid');
    } finally {
      await other.close();
    }
    const hs = await hsToken({ sub: 'erin', aud: 'agentport-test', iss: idp.issuer });
    expect(await expectRefused(s.http, bearer(hs))).toBe('The token issuer is not trusted');
  });
});

describe('HS256 shared secret', () => {
  it('authenticates tokens the deployment mints, with usecase and scope', async () => {
    const id = await createTask(s.http, bearer(await hsToken({ sub: 'gina', iss: 'minter', aud: 'agentport-hs', scope: 'a2a:publish', usecase: 'sales' })));
    expect(await canRead(s.http, id, bearer(await hsToken({ sub: 'gina', iss: 'minter', aud: 'agentport-hs' })))).toBe(true);
    expect(await canRead(s.http, id, bearer(await hsToken({ sub: 'hank', iss: 'minter', aud: 'agentport-hs' })))).toBe(false);
  });

  it('refuses another secret, another issuer, another audience and HS384', async () => {
    expect(await expectRefused(s.http, bearer(await hsToken({ sub: 'gina', iss: 'minter', aud: 'agentport-hs' }, { secret: 'y'.repeat(40) })))).toBe('The bearer token signature is not valid');
    expect(await expectRefused(s.http, bearer(await hsToken({ sub: 'gina', iss: 'someone', aud: 'agentport-hs' })))).toBe('The token issuer is not trusted');
    expect(await expectRefused(s.http, bearer(await hsToken({ sub: 'gina', iss: 'minter', aud: s.http })))).toBe('The bearer token is for another audience');
    const hs384 = await new SignJWT({ sub: 'gina', iss: 'minter', aud: 'agentport-hs' }).setProtectedHeader({ alg: 'HS384' }).setExpirationTime('5m').sign(new TextEncoder().encode(SECRET));
    expect(await expectRefused(s.http, bearer(hs384))).toBe('The bearer token is signed with an algorithm not accepted here');
  });
});

describe('HTTP+JSON binding', () => {
  it('answers 401 with the Bearer challenge in the REST error shape', async () => {
    const res = await fetch(`${s.http}/a2a/echo/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...bearer(stored.revoked) },
      body: JSON.stringify({ message: userMessage('hi') }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${s.http}/.well-known/oauth-protected-resource/a2a/echo", scope="a2a:discover a2a:publish", error="invalid_token", error_description="The API key has been revoked"`,
    );
    const body = await res.json();
    expect(body.error.status).toBe('UNAUTHENTICATED');
  });

  it('JSON-RPC 401s carry the same challenge', async () => {
    const r = await rpc(`${s.http}/a2a/echo`, 'GetTask', { id: 'x' }, bearer(stored.expired));
    expect(r.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${s.http}/.well-known/oauth-protected-resource/a2a/echo", scope="a2a:discover a2a:publish", error="invalid_token", error_description="The API key has expired"`,
    );
  });
});

describe('an external issuer whose discovery document names another issuer', () => {
  it("is our outage (503, no challenge), not the caller's bad token", async () => {
    const liar = await startLoopbackIssuer({ discoveryIssuer: () => 'https://someone-else.example' });
    const server = await startTestServer({ auth: { issuers: [{ issuer: liar.issuer, audience: 'a' }] } });
    try {
      const r = await rpc(`${server.http}/a2a/echo`, 'SendMessage', { message: userMessage('hi') }, bearer(await liar.sign({ sub: 'x', aud: 'a', iss: liar.issuer })));
      expect(r.status).toBe(503);
      expect(r.headers.get('www-authenticate')).toBeNull();
      expect(r.body.error.message).toBe("The token issuer's metadata could not be used: the discovery document names another issuer");
      expect(liar.hits['/jwks']).toBeUndefined();
    } finally {
      await server.stop();
      await liar.close();
    }
  });
});

describe('an external issuer whose configured JWKS URL answers 404', () => {
  it('is a 503 without challenge, and discovery is skipped', async () => {
    const idp2 = await startLoopbackIssuer();
    const server = await startTestServer({ auth: { issuers: [{ issuer: idp2.issuer, audience: 'a', jwksUri: `${idp2.issuer}/missing` }] } });
    try {
      const r = await rpc(`${server.http}/a2a/echo`, 'SendMessage', { message: userMessage('hi') }, bearer(await idp2.sign({ sub: 'x', aud: 'a', iss: idp2.issuer })));
      expect(r.status).toBe(503);
      expect(r.headers.get('www-authenticate')).toBeNull();
      expect(idp2.hits['/missing']).toBe(1);
      expect(idp2.hits['/.well-known/openid-configuration']).toBeUndefined();
    } finally {
      await server.stop();
      await idp2.close();
    }
  });
});
