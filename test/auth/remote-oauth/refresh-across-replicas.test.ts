/**
 * Issue 27 (ADR 0035, "Refresh once across replicas"): two replicas of A on one real PostgreSQL
 * schema (and Redis) hold one user's tokens for B, a real Agentport whose refresh tokens rotate
 * (a refresh token presented twice ends the whole grant there). The user's access token is near
 * expiry; both replicas get a call for the user at the same moment: B sees exactly one refresh
 * grant, both calls succeed, and the rotated refresh token is kept (a later refresh works).
 *
 * The connection is seeded as the callback would store it, with tokens B issued to bea through its
 * real authorization-code flow (the connect flow itself is tested in remote-mcp-oauth.test.ts);
 * its recorded expiry is set inside A's refresh margin so both calls need a refresh now.
 */
import { randomBytes } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenCipher, TokenVault, vaultKeysOf } from '../../../src/core/vault/index.js';
import { openPostgresStore } from '../../../src/store/index.js';
import { rpc, startTestServer, type TestServer } from '../../support/server.js';
import { browse, startOAuthServer } from '../oauth/support.js';

const PG_URL = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.AGENTPORT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const run = `vault_refresh_${Date.now().toString(36)}_${process.pid}`;
const ALICE_KEY = 'alice-two-replicas-key-000000001';
const B_ADMIN_KEY = 'b-admin-two-replicas-key-0000001';
const BEA = { username: 'bea', password: 'bea has a long password here' };
const VAULT = { keys: [{ id: 'k1', secret: randomBytes(32).toString('base64') }] };
const REDIRECT = 'http://127.0.0.1:47114/cb';
const insecure = { [oauth.allowInsecureRequests]: true };
/** B's access token lifetime: 5 s beyond A's 60 s refresh margin, so a fresh token is used as is for 5 s */
const B_TTL_SECONDS = 65;

let b: TestServer;
let a1: TestServer;
let a2: TestServer;

beforeAll(async () => {
  b = await startOAuthServer({ auth: { apiKeys: [{ key: B_ADMIN_KEY, subject: 'b-admin', scopes: ['admin'] }], oauth: { accessTokenTtlSeconds: B_TTL_SECONDS } }, agents: [{ id: 'echo', builtin: 'echo' }] }, [BEA]);
  // A's client at B (public, as A registers itself), and bea's tokens from B's authorization-code flow.
  const issuer = new URL(b.http);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  const client = await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], client_name: 'agentport A' }, insecure),
  );
  const verifier = oauth.generateRandomCodeVerifier();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'a2a:publish a2a:discover',
    resource: `${b.http}/a2a/echo`,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  const consent = await browse(b, url.href, { redirectPrefix: REDIRECT, user: BEA });
  const params = oauth.validateAuthResponse(as, client, consent.callback!, oauth.expectNoState);
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, insecure));
  expect(tokens.refresh_token).toBeTruthy();

  const replica = (n: number) => ({
    agents: [{ id: 'bee', remote: { cardUrl: `${b.http}/a2a/echo`, allowlist: ['127.0.0.1'], auth: { kind: 'oauth', issuer: b.http, clientId: client.client_id } } }],
    auth: { mode: 'required', apiKeys: [{ key: ALICE_KEY, subject: 'alice', scopes: ['a2a:publish', 'a2a:discover'] }], vault: VAULT },
    storage: { driver: 'postgres', url: PG_URL, schema: run },
    bus: { driver: 'redis', url: REDIS_URL, prefix: run },
    cluster: { replicaId: `r${n}` },
  });
  a1 = await startTestServer(replica(1));
  a2 = await startTestServer(replica(2));

  // Stored as A's callback stores a connection, its expiry already within A's refresh margin.
  const store = await openPostgresStore({ connectionString: PG_URL, schema: run, maxConnections: 2 });
  try {
    const vault = new TokenVault(store.oauth.remoteTokens, new TokenCipher(vaultKeysOf(VAULT)));
    await vault.connect('alice', 'bee', {
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token,
      tokenType: 'Bearer',
      expiresAt: Date.now() + 30_000,
      issuer: as.issuer,
      client: JSON.stringify({ client_id: client.client_id }),
    });
  } finally {
    await store.close();
  }
}, 120_000);

afterAll(async () => {
  await Promise.all([a1?.stop(), a2?.stop()]);
  await b?.stop();
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  await c.query(`drop schema if exists "${run}" cascade`);
  await c.end();
});

const send = (replica: TestServer, text: string) =>
  rpc(`${replica.http}/a2a/bee`, 'SendMessage', { message: { messageId: `m-${randomBytes(6).toString('hex')}`, role: 'ROLE_USER', parts: [{ text }] } }, { 'x-api-key': ALICE_KEY });

async function refreshesAtB(): Promise<number> {
  const r = await fetch(`${b.http}/api/v1/audit?limit=1000`, { headers: { 'x-api-key': B_ADMIN_KEY } });
  expect(r.status).toBe(200);
  const records = ((await r.json()) as any).records as any[];
  expect(records.filter((x) => x.action === 'grant.revoked')).toEqual([]); // no refresh token presented twice
  return records.filter((x) => x.action === 'token.refreshed').length;
}

const stateOf = (r: { body: any }) => r.body.result?.task?.status?.state;

describe('two replicas of A on one PostgreSQL share one refresh of a user’s token', () => {
  it('concurrent calls on both replicas: one refresh grant at B, both calls succeed', async () => {
    expect(await refreshesAtB()).toBe(0);
    const [one, two] = await Promise.all([send(a1, 'from replica one'), send(a2, 'from replica two')]);
    expect(stateOf(one), JSON.stringify(one.body)).toBe('TASK_STATE_COMPLETED');
    expect(stateOf(two), JSON.stringify(two.body)).toBe('TASK_STATE_COMPLETED');
    expect(await refreshesAtB()).toBe(1);
  });

  it('the rotated refresh token was kept: once the new token nears expiry, the next call refreshes with it', async () => {
    // The refreshed token would be used as is for 5 s more; its recorded expiry is moved inside the
    // margin instead of waiting (the access token itself stays valid at B, only the refresh matters).
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    try {
      const moved = await c.query(`update "${run}".remote_tokens set expires_at = $1 where subject = 'alice' and remote = 'bee'`, [Date.now() + 30_000]);
      expect(moved.rowCount).toBe(1);
    } finally {
      await c.end();
    }
    const later = await send(a2, 'later');
    expect(stateOf(later), JSON.stringify(later.body)).toBe('TASK_STATE_COMPLETED');
    expect(await refreshesAtB()).toBe(2);
    const again = await send(a1, 'and on the other replica');
    expect(stateOf(again), JSON.stringify(again.body)).toBe('TASK_STATE_COMPLETED');
  });
});
