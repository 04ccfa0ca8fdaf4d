/**
 * Sign-in with a bearer token (`auth.oauth.login: [token]`), as the replaced service's
 * authorization page did: the person pastes an access token from the deployment's identity
 * provider (Auth0, Logto: any issuer of `auth.issuers`) and a usecase id. The token is verified like
 * any external token (JWKS, issuer, audience, expiry, src/auth/jwt-bearer.ts); the usecase is the
 * one its `mcp:tools:<usecase>` scope names, or the one typed in, which that scope must cover. The
 * account is the token's subject (`<issuer>#<sub>`, the same owner as when the token is used
 * directly), and every token Agentport then issues for this authorization carries the usecase
 * (the `usecase` claim: src/core/authz/scopes.ts binds its holder to it).
 */
import { decodeJwt } from 'jose';
import type { ExternalIssuerConfig } from '../../config/config.js';
import type { KeyStore } from '../../core/keys/key-store.js';
import { MCP_USECASE_SCOPE_PREFIX, SCOPES } from '../../core/authz/scopes.js';
import type { Principal } from '../../core/authz/principal.js';
import { A2AError } from '../../protocol/a2a/errors.js';
import type { OAuthStore } from '../../store/oauth-store.js';
import { JwtBearer } from '../jwt-bearer.js';
import { isUsecaseScope } from './scopes.js';

/** `mcp:tools:*`: every usecase (as `mcp:tools`). */
const ALL_USECASES = `${MCP_USECASE_SCOPE_PREFIX}*`;
const GRANT_MODEL = 'TokenLoginGrant';

export class TokenLoginError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** What a verified sign-in may grant: carried through the interaction to the consent step. */
export interface TokenLoginResult {
  accountId: string;
  usecase: string;
  /** the scopes this sign-in may grant (never admin) */
  scopes: string[];
}

export interface TokenLogin {
  verify(token: string, usecase: string | undefined): Promise<TokenLoginResult>;
  /** whether an account id is one this sign-in makes (a subject of a configured issuer) */
  isAccount(accountId: string): boolean;
  /** remembers the usecase of an authorization (grant), for every token issued under it */
  bindGrant(grantId: string, usecase: string, ttlSeconds: number): Promise<void>;
  usecaseOfGrant(grantId: string): Promise<string | undefined>;
}

export function createTokenLogin(o: { issuers: readonly ExternalIssuerConfig[]; keys: KeyStore; store: OAuthStore; clockSkewSeconds: number }): TokenLogin {
  const issuers = new Set(o.issuers.map((i) => i.issuer));
  // Only the external issuers: an Agentport token is not a sign-in (it would launder its own rights).
  const bearer = new JwtBearer({ keys: o.keys, ownIssuer: () => 'urn:agentport:token-login:no-own-issuer', issuers: o.issuers, clockSkewSeconds: o.clockSkewSeconds });

  return {
    async verify(token, typed) {
      let iss: unknown;
      try {
        iss = decodeJwt(token.trim()).iss;
      } catch {
        throw new TokenLoginError(401, 'The token is not a JWT from your identity provider.');
      }
      if (typeof iss !== 'string' || !issuers.has(iss)) throw new TokenLoginError(401, 'The token was not issued by an identity provider this server trusts.');
      let principal: Principal;
      try {
        principal = await bearer.authenticate(token.trim());
      } catch (err) {
        const e = err instanceof A2AError ? err : new A2AError('Unauthenticated');
        if (e.kind === 'Unavailable') throw new TokenLoginError(503, 'Your identity provider could not be reached. Try again later.');
        throw new TokenLoginError(401, `${e.message}.`);
      }
      const scopes = principal.scopes;
      const all = scopes.includes(SCOPES.mcpTools) || scopes.includes(ALL_USECASES) || scopes.includes(SCOPES.admin);
      const scoped = scopes.filter(isUsecaseScope).map((s) => s.slice(MCP_USECASE_SCOPE_PREFIX.length));
      const usecase = typed?.trim() || (scoped.length === 1 ? scoped[0] : undefined);
      if (!usecase) {
        throw new TokenLoginError(400, scoped.length > 1 ? `The token covers several usecases (${scoped.join(', ')}): enter one.` : 'Enter a usecase id: the token names none in its mcp:tools scope.');
      }
      if (!isUsecaseScope(`${MCP_USECASE_SCOPE_PREFIX}${usecase}`)) throw new TokenLoginError(400, 'A usecase id is lowercase letters, digits, - and _.');
      if (!all && !scoped.includes(usecase)) throw new TokenLoginError(403, `The token's scope does not cover usecase ${usecase}.`);
      // What it may grant: its own A2A scopes, and the tools of this usecase (never admin).
      const grantable = [...scopes.filter((s) => s === SCOPES.discover || s === SCOPES.publish), SCOPES.mcpTools, `${MCP_USECASE_SCOPE_PREFIX}${usecase}`];
      return { accountId: principal.subject, usecase, scopes: [...new Set(grantable)] };
    },

    isAccount(accountId) {
      const hash = accountId.indexOf('#');
      return hash > 0 && issuers.has(accountId.slice(0, hash));
    },

    async bindGrant(grantId, usecase, ttlSeconds) {
      // Tied to the grant: revoking it (logout, user deletion, refresh replay) drops the record too.
      await o.store.upsertRecord(GRANT_MODEL, grantId, { payload: { usecase }, grantId, expiresAt: Date.now() + ttlSeconds * 1000 });
    },

    async usecaseOfGrant(grantId) {
      const r = await o.store.findRecord(GRANT_MODEL, grantId, Date.now());
      const u = (r?.payload as { usecase?: unknown } | undefined)?.usecase;
      return typeof u === 'string' ? u : undefined;
    },
  };
}
