/**
 * The signed caller identity (src/core/keys/caller-identity.ts) is signed with the same keys as
 * Agentport's access tokens, so its own `typ` must keep it from ever passing as one: a remote that
 * received it cannot replay it at Agentport. The control is an access token with the same claims.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { issueAccessToken } from '../../../src/auth/access-tokens.js';
import { JwtBearer } from '../../../src/auth/jwt-bearer.js';
import { KeyStore } from '../../../src/core/keys/key-store.js';
import { KeyStoreCallerIdentity } from '../../../src/core/keys/caller-identity.js';

const ISSUER = 'http://127.0.0.1:9';

describe('signed caller identity', () => {
  const keys = new KeyStore({ dataDir: mkdtempSync(path.join(tmpdir(), 'agentport-caller-')) });
  const signer = new KeyStoreCallerIdentity({ keys, issuer: () => ISSUER });
  const caller = { subject: 'bob', scopes: ['a2a:publish'], usecase: 'sales', clientId: 'crm' };

  it('carries usecase and client_id, verifiable at the published JWKS', async () => {
    const jwt = await signer.sign({ audience: 'https://inside.example', caller });
    const { payload } = await jwtVerify(jwt, createLocalJWKSet(await keys.jwks()), { issuer: ISSUER, audience: 'https://inside.example', typ: 'agentport-caller+jwt' });
    expect(payload).toMatchObject({ sub: 'bob', scope: 'a2a:publish', usecase: 'sales', client_id: 'crm' });
    expect(payload.exp! - payload.iat!).toBe(60);
  });

  it('is refused as a bearer token by Agentport itself, where an access token with the same claims passes', async () => {
    const bearer = new JwtBearer({ keys, ownIssuer: () => ISSUER, clockSkewSeconds: 0 });
    const access = await issueAccessToken(keys, { issuer: ISSUER, audience: ISSUER, subject: 'bob', scopes: ['a2a:publish'] });
    expect((await bearer.authenticate(access)).subject).toBe('bob');
    const identity = await signer.sign({ audience: ISSUER, caller });
    await expect(bearer.authenticate(identity)).rejects.toMatchObject({ name: 'A2AError', kind: 'Unauthenticated' });
  });
});
