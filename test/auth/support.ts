/** Helpers of the auth tests: an owner probe over real HTTP, and a loopback OIDC issuer. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { expect } from 'vitest';
import { rpc, userMessage } from '../support/server.js';

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Creates a task as `headers`' caller; returns its id. */
export async function createTask(http: string, headers: Record<string, string>): Promise<string> {
  const r = await rpc(`${http}/a2a/echo`, 'SendMessage', { message: userMessage('hi') }, headers);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.result?.task?.id, JSON.stringify(r.body)).toBeTypeOf('string');
  return r.body.result.task.id as string;
}

/** Whether the caller of `headers` can read the task (owner scoping: others get not-found). */
export async function canRead(http: string, taskId: string, headers: Record<string, string>): Promise<boolean> {
  const r = await rpc(`${http}/a2a/echo`, 'GetTask', { id: taskId }, headers);
  if (r.body.result) return true;
  expect(r.body.error?.code, JSON.stringify(r.body)).toBe(-32001);
  return false;
}

/** Asserts a 401 with a Bearer invalid_token challenge, and returns the error message. */
export async function expectRefused(http: string, headers: Record<string, string>): Promise<string> {
  const r = await rpc(`${http}/a2a/echo`, 'SendMessage', { message: userMessage('hi') }, headers);
  expect(r.status, JSON.stringify(r.body)).toBe(401);
  const challenge = r.headers.get('www-authenticate') ?? '';
  expect(challenge).toMatch(/^Bearer /);
  expect(challenge).toContain('error="invalid_token"');
  expect(challenge).toContain('scope="a2a:discover a2a:publish"');
  expect(r.body.error.data[0].reason).toBe('UNAUTHENTICATED');
  return r.body.error.message as string;
}

export interface LoopbackIssuer {
  issuer: string;
  /** requests seen, by path */
  hits: Record<string, number>;
  sign(claims: JWTPayload, o?: { alg?: string; key?: CryptoKey; kid?: string; expiresIn?: string | number }): Promise<string>;
  close(): Promise<void>;
}

/** A real OIDC issuer on 127.0.0.1: discovery document and JWKS, RS256 keys made with jose. */
export async function startLoopbackIssuer(o: { discoveryIssuer?: (issuer: string) => string } = {}): Promise<LoopbackIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'rs-1', alg: 'RS256', use: 'sig' };
  const hits: Record<string, number> = {};
  let issuer = '';
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits[path] = (hits[path] ?? 0) + 1;
    if (path === '/.well-known/openid-configuration') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ issuer: o.discoveryIssuer ? o.discoveryIssuer(issuer) : issuer, jwks_uri: `${issuer}/jwks` }));
    }
    if (path === '/jwks') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ keys: [jwk] }));
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    hits,
    sign: (claims, s = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: s.alg ?? 'RS256', kid: s.kid ?? 'rs-1' })
        .setIssuedAt()
        .setExpirationTime(s.expiresIn ?? '5m')
        .sign(s.key ?? privateKey),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
