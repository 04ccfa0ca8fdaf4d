/**
 * RFC 7009 revocation and RFC 7662 introspection of our JWT access tokens. oidc-provider answers
 * `unsupported_token_type` for structured tokens (it keeps no record of them); this middleware runs
 * after it, when the client is already authenticated, and answers instead:
 *
 * - revoke: a token of the calling client is revoked by revoking its grant (every token of that
 *   authorization, refresh tokens included), or, for client-credentials tokens that have no
 *   grant, by its `jti` until it expires. Anything else is a silent 200 (RFC 7009 §2.2).
 * - introspect: active only for the calling client's own, live tokens (RFC 7662 §2.2 lets the
 *   server decide who may learn what; a client learns nothing about another client's tokens).
 */
import { createLocalJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { MiddlewareContext } from 'oidc-provider';
import type { KeyStore } from '../../core/keys/key-store.js';
import { ACCESS_TOKEN_TYP } from '../access-tokens.js';
import type { TokenRevocations } from './token-revocations.js';

export function structuredTokenRequests(o: { issuer: string; keys: KeyStore; revocations: TokenRevocations }) {
  const verifyOwn = async (token: string, checkTime: boolean): Promise<JWTPayload | undefined> => {
    try {
      const { payload } = await jwtVerify(token, createLocalJWKSet(await o.keys.jwks()), {
        issuer: o.issuer,
        algorithms: ['ES256'],
        typ: ACCESS_TOKEN_TYP,
        ...(checkTime ? {} : { currentDate: new Date(0) }),
      });
      return payload;
    } catch {
      return undefined;
    }
  };

  return async (ctx: MiddlewareContext, next: () => Promise<void>): Promise<void> => {
    await next();
    const route = ctx.oidc?.route;
    if (route !== 'revocation' && route !== 'introspection') return;
    const body = ctx.body as { error?: string } | undefined;
    const client = ctx.oidc?.client;
    const token = ctx.oidc?.params?.token;
    if (body?.error !== 'unsupported_token_type' || !client || typeof token !== 'string') return;

    if (route === 'revocation') {
      const payload = await verifyOwn(token, false);
      if (payload && payload.client_id === client.clientId) await o.revocations.revoke(payload);
      ctx.status = 200;
      ctx.body = '';
      return;
    }
    const payload = await verifyOwn(token, true);
    const active = payload !== undefined && payload.client_id === client.clientId && !(await o.revocations.isRevoked(payload));
    ctx.status = 200;
    ctx.type = 'application/json';
    ctx.body = active
      ? {
          active: true,
          token_type: 'Bearer',
          iss: payload.iss,
          sub: payload.sub,
          aud: payload.aud,
          client_id: payload.client_id,
          ...(typeof payload.scope === 'string' ? { scope: payload.scope } : {}),
          exp: payload.exp,
          iat: payload.iat,
          jti: payload.jti,
          // RFC 8693 §4.1: the actor of an exchanged token
          ...(payload.act !== undefined ? { act: payload.act } : {}),
        }
      : { active: false };
  };
}
