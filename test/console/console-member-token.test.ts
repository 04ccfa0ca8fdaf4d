/**
 * The console's OAuth client is public: anyone can run its code flow by hand and keep the access
 * token. Asking for every scope (as the console does) must not give a member more than the
 * member's own scopes — in the token, in the consent grant, and at the API.
 */
import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browse, startOAuthServer } from '../auth/oauth/support.js';
import type { TestServer } from '../support/server.js';

const MEMBER = { username: 'bob', password: 'console member password 1', scopes: ['a2a:discover', 'usage:read'] };

let s: TestServer;
beforeAll(async () => {
  s = await startOAuthServer({}, [MEMBER]);
}, 60_000);
afterAll(async () => s?.stop());

it('a member who asks the console client for every scope gets only their own', async () => {
  const redirectUri = `${s.http}/console/`;
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const scope = 'a2a:discover a2a:publish mcp:tools usage:read admin';
  const q = new URLSearchParams({ response_type: 'code', client_id: 'agentport-console', redirect_uri: redirectUri, scope, state: 'st', code_challenge: challenge, code_challenge_method: 'S256' });
  const flow = await browse(s, `${s.http}/oauth/authorize?${q}`, { redirectPrefix: redirectUri, user: MEMBER });
  const code = flow.callback?.searchParams.get('code');
  expect(code).toBeTruthy();
  const res = await fetch(`${s.http}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: code!, redirect_uri: redirectUri, client_id: 'agentport-console', code_verifier: verifier }),
  });
  const answer = (await res.json()) as { access_token: string; scope?: string };
  const granted = String(decodeJwt(answer.access_token).scope ?? '').split(' ');
  expect(granted.sort()).toEqual(['a2a:discover', 'usage:read']);
  expect((await fetch(`${s.http}/api/v1/users`, { headers: { authorization: `Bearer ${answer.access_token}` } })).status).toBe(403);
});
