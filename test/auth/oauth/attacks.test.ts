/**
 * What an attacker tries against the authorization server and the resource server, each refused
 * with the RFC's error and nothing usable leaked: PKCE missing, plain or mismatched; redirect
 * mismatch and open redirects; code replay; refresh-token replay (the family is revoked); tokens
 * for another audience, expired, not yet valid, unsigned, or signed with the public key as an HMAC
 * secret; metadata documents at private addresses or too large.
 */
import { generateKeyPairSync } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { SignJWT, exportJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueAccessToken } from '../../../src/auth/access-tokens.js';
import { KeyStore } from '../../../src/core/keys/key-store.js';
import type { TestServer } from '../../support/server.js';
import { startDocumentServer, type DocumentServer } from './https-fixture.js';
import { browse, mcpToolsList, startOAuthServer } from './support.js';

const insecure = { [oauth.allowInsecureRequests]: true };
const REDIRECT = 'http://127.0.0.1:47001/cb';

describe('OAuth attacks', () => {
  let s: TestServer;
  let docs: DocumentServer;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;

  const authorizeUrl = async (p: Record<string, string>) => {
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', resource: `${as.issuer}/mcp`, ...p }).toString();
    return url.href;
  };
  /** A full sign-in; the code and the verifier it was bound to. */
  const codeFor = async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const r = await browse(s, await authorizeUrl({ code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' }), { redirectPrefix: REDIRECT });
    return { params: oauth.validateAuthResponse(as, client, r.callback!, oauth.expectNoState), verifier };
  };
  const redeem = (params: URLSearchParams, verifier: string) => oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, insecure);
  const tokenError = async (res: Response) => ({ status: res.status, error: ((await res.json()) as { error: string }).error });

  beforeAll(async () => {
    docs = await startDocumentServer();
    s = await startOAuthServer({ auth: { oauth: { clientIdMetadataDocuments: { allowLoopbackHosts: true, trustedCaFile: docs.caFile } } } });
    const issuer = new URL(s.http);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    client = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', client_name: 'attack target' }, insecure),
    );
  });
  afterAll(async () => {
    await s?.stop();
    await docs?.close();
  });

  it('refuses an authorization request without PKCE (error back to the client, no code)', async () => {
    const r = await browse(s, await authorizeUrl({}), { redirectPrefix: REDIRECT });
    expect(r.callback?.searchParams.get('code')).toBeNull();
    expect(r.callback?.searchParams.get('error')).toBe('invalid_request');
  });

  it('refuses the plain PKCE method', async () => {
    const r = await browse(s, await authorizeUrl({ code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }), { redirectPrefix: REDIRECT });
    expect(r.callback?.searchParams.get('code')).toBeNull();
    expect(r.callback?.searchParams.get('error')).toBe('invalid_request');
  });

  it('refuses a code redeemed with the wrong verifier', async () => {
    const { params } = await codeFor();
    expect(await tokenError(await redeem(params, oauth.generateRandomCodeVerifier()))).toEqual({ status: 400, error: 'invalid_grant' });
  });

  it('never redirects to an unregistered redirect_uri (open redirect), and shows an error page instead', async () => {
    for (const evil of ['https://evil.example/cb', 'http://127.0.0.1:47001/other', 'http://127.0.0.1.evil.example:47001/cb']) {
      const url = new URL(await authorizeUrl({ code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' }));
      url.searchParams.set('redirect_uri', evil);
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.text()).toContain('redirect_uri');
    }
  });

  it('accepts the registered loopback redirect on another port (RFC 8252 §7.3)', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const other = 'http://127.0.0.1:59999/cb';
    const url = new URL(await authorizeUrl({ code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' }));
    url.searchParams.set('redirect_uri', other);
    const r = await browse(s, url.href, { redirectPrefix: other });
    expect(r.callback?.searchParams.get('code')).toBeTruthy();
  });

  it('refuses dynamic registration of a redirect URI outside loopback and the allowed list', async () => {
    const res = await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: ['https://evil.example/cb'], token_endpoint_auth_method: 'none' }, insecure);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_redirect_uri');
    const claude = await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: ['https://claude.ai/api/mcp/auth_callback'], token_endpoint_auth_method: 'none' }, insecure);
    expect(claude.status).toBe(201);
  });

  it('refuses dynamic registration of client credentials or the admin scope', async () => {
    const cc = await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [REDIRECT], grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic' }, insecure);
    expect(cc.status).toBe(400);
    const admin = await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [REDIRECT], scope: 'admin', token_endpoint_auth_method: 'none' }, insecure);
    expect(admin.status).toBe(400);
  });

  it('code replay: the second redemption fails and the tokens of the first are revoked', async () => {
    const { params, verifier } = await codeFor();
    const first = await oauth.processAuthorizationCodeResponse(as, client, await redeem(params, verifier));
    expect((await mcpToolsList(s, first.access_token)).status).toBe(200);
    expect(await tokenError(await redeem(params, verifier))).toEqual({ status: 400, error: 'invalid_grant' });
    expect((await mcpToolsList(s, first.access_token)).status).toBe(401);
  });

  it('refresh replay: reusing a rotated refresh token revokes the whole family', async () => {
    const { params, verifier } = await codeFor();
    const t1 = await oauth.processAuthorizationCodeResponse(as, client, await redeem(params, verifier));
    const t2 = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), t1.refresh_token!, insecure));
    expect((await mcpToolsList(s, t2.access_token)).status).toBe(200);
    // The attacker replays the old refresh token…
    expect(await tokenError(await oauth.refreshTokenGrantRequest(as, client, oauth.None(), t1.refresh_token!, insecure))).toEqual({ status: 400, error: 'invalid_grant' });
    // …and the legitimate holder's newer tokens die with it.
    expect((await mcpToolsList(s, t2.access_token)).status).toBe(401);
    expect(await tokenError(await oauth.refreshTokenGrantRequest(as, client, oauth.None(), t2.refresh_token!, insecure))).toEqual({ status: 400, error: 'invalid_grant' });
  });

  it('refuses a resource that is not ours (RFC 8707 invalid_target)', async () => {
    const r = await browse(s, await authorizeUrl({ resource: 'https://elsewhere.example/mcp', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' }), { redirectPrefix: REDIRECT });
    expect(r.callback?.searchParams.get('error')).toBe('invalid_target');
  });

  describe('tokens the resource server refuses', () => {
    const own = async (o: Partial<Parameters<typeof issueAccessToken>[1]>) =>
      issueAccessToken(new KeyStore({ dataDir: s.dataDir }), { issuer: as.issuer, audience: `${as.issuer}/mcp`, subject: 'alice', scopes: ['mcp:tools'], ...o });

    it('accepts a well-formed own token (control)', async () => {
      expect((await mcpToolsList(s, await own({}))).status).toBe(200);
    });
    it('wrong audience', async () => {
      const r = await mcpToolsList(s, await own({ audience: 'https://other.example/mcp' }));
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toContain('invalid_token');
    });
    it('expired', async () => {
      const now = Math.floor(Date.now() / 1000);
      expect((await mcpToolsList(s, await own({ issuedAt: now - 7200, ttlSeconds: 3600 }))).status).toBe(401);
    });
    it('not yet valid', async () => {
      expect((await mcpToolsList(s, await own({ notBefore: Math.floor(Date.now() / 1000) + 3600 }))).status).toBe(401);
    });
    it('alg none', async () => {
      const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
      const now = Math.floor(Date.now() / 1000);
      const token = `${enc({ alg: 'none', typ: 'at+jwt' })}.${enc({ iss: as.issuer, aud: `${as.issuer}/mcp`, sub: 'alice', scope: 'mcp:tools', exp: now + 600, iat: now })}.`;
      expect((await mcpToolsList(s, token)).status).toBe(401);
    });
    it('HS256 signed with the published public key (key confusion)', async () => {
      const jwks = (await (await fetch(`${s.http}/.well-known/jwks.json`)).json()) as { keys: object[] };
      const secret = new TextEncoder().encode(JSON.stringify(jwks.keys[0]));
      const token = await new SignJWT({ scope: 'mcp:tools' })
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
        .setIssuer(as.issuer)
        .setAudience(`${as.issuer}/mcp`)
        .setSubject('alice')
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(secret);
      expect((await mcpToolsList(s, token)).status).toBe(401);
    });
    it('ES256 by a key that is not ours, claiming our issuer', async () => {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const kid = ((await exportJWK(publicKey)) as { x: string }).x.slice(0, 8);
      const token = await new SignJWT({ scope: 'mcp:tools' })
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid })
        .setIssuer(as.issuer)
        .setAudience(`${as.issuer}/mcp`)
        .setSubject('alice')
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(privateKey);
      expect((await mcpToolsList(s, token)).status).toBe(401);
    });
  });

  describe('Client ID Metadata Documents', () => {
    const attempt = async (clientId: string) => {
      const url = new URL(as.authorization_endpoint!);
      url.search = new URLSearchParams({ client_id: clientId, redirect_uri: REDIRECT, response_type: 'code', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' }).toString();
      const res = await fetch(url, { redirect: 'manual' });
      return { status: res.status, location: res.headers.get('location'), body: await res.text() };
    };

    it('refuses a document at a private address (SSRF guard) without fetching it', async () => {
      for (const id of ['https://10.0.0.1/client.json', 'https://169.254.169.254/latest/meta-data.json', 'https://[fd00::1]/c.json']) {
        const r = await attempt(id);
        expect(r.status).toBe(400);
        expect(r.location).toBeNull();
        expect(r.body).toContain('invalid_client');
      }
    });

    it('refuses an oversized document', async () => {
      const clientId = `${docs.origin}/big.json`;
      docs.serve('/big.json', JSON.stringify({ client_id: clientId, redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', client_name: 'x'.repeat(20_000) }));
      const r = await attempt(clientId);
      expect(r.status).toBe(400);
      expect(r.location).toBeNull();
      expect(r.body).toContain('invalid_client');
      // refused after fetching (the size cap), not before, and not fetched again on a retry;
      // the same document cut short is accepted
      expect(docs.hits('/big.json')).toBe(1);
      expect((await attempt(clientId)).status).toBe(400);
      expect(docs.hits('/big.json')).toBe(1);
      const small = `${docs.origin}/small.json`;
      docs.serve('/small.json', JSON.stringify({ client_id: small, redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', client_name: 'x'.repeat(200) }));
      expect((await attempt(small)).status).toBe(303);
    });

    it('refuses a document whose redirect URIs are outside loopback and the allowed list', async () => {
      const clientId = `${docs.origin}/evil.json`;
      docs.serve('/evil.json', JSON.stringify({ client_id: clientId, redirect_uris: ['https://evil.example/cb'], token_endpoint_auth_method: 'none' }));
      const r = await attempt(clientId);
      expect(r.status).toBe(400);
      expect(r.location).toBeNull();
    });

    it('refuses a document that names another client_id', async () => {
      const clientId = `${docs.origin}/mismatch.json`;
      docs.serve('/mismatch.json', JSON.stringify({ client_id: `${docs.origin}/other.json`, redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }));
      expect((await attempt(clientId)).status).toBe(400);
    });
  });
});
