/**
 * OAuth endpoints answer a method they do not support with a JSON 405 and `Allow` (issue 19; a bare
 * OPTIONS and a POST to the GET-only authorization endpoint too, issue 25), and an unknown `/oauth/*`
 * path with a JSON 404; the CORS preflight still reaches the provider.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../../support/server.js';
import { startOAuthServer } from './support.js';

describe('OAuth route methods', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startOAuthServer();
  });
  afterAll(async () => s?.stop());

  it.each([
    ['GET', '/oauth/token', 'POST'],
    ['GET', '/oauth/register', 'POST'],
    ['GET', '/oauth/revoke', 'POST'],
    ['PUT', '/oauth/authorize', 'GET'],
    ['DELETE', '/mcp/oauth/token', 'POST'],
    ['POST', '/.well-known/openid-configuration', 'GET, HEAD'],
  ])('%s %s is a JSON 405 allowing %s', async (method, path, allow) => {
    const res = await fetch(`${s.http}${path}`, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toMatchObject({ error: 'method_not_allowed' });
  });

  it('answers an unknown /oauth path with a JSON 404', async () => {
    const res = await fetch(`${s.http}/oauth/nothing-here`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'not_found' });
  });

  it.each([
    ['/oauth/token', 'POST'],
    ['/oauth/revoke', 'POST'],
    ['/oauth/register', 'POST'],
  ])('OPTIONS %s without preflight headers is a JSON 405 allowing %s (issue 25)', async (path, allow) => {
    const res = await fetch(`${s.http}${path}`, { method: 'OPTIONS' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toMatchObject({ error: 'method_not_allowed' });
  });

  it('answers POST /oauth/authorize with a form body as a JSON 405 allowing GET, never a plain-text 404 (issue 25)', async () => {
    const res = await fetch(`${s.http}/oauth/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: 'no-such-client', response_type: 'code', redirect_uri: 'http://127.0.0.1:9/cb', scope: 'a2a:discover' }).toString(),
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toMatchObject({ error: 'method_not_allowed' });
  });

  it('still answers the CORS preflight of the token endpoint', async () => {
    const res = await fetch(`${s.http}/oauth/token`, { method: 'OPTIONS', headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'POST' } });
    expect(res.status).toBe(204);
  });
});
