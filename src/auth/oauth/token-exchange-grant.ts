/**
 * RFC 8693 token exchange at Agentport's own token endpoint (docs/decisions/0043-token-exchange.md):
 * a client an administrator trusted with the grant (`agentport clients create --token-exchange`)
 * presents a user's Agentport access token and receives a narrower one, for the same or another of
 * our audiences, naming itself in `act` (§4.1). A service behind Agentport so calls on a user's
 * behalf without ever holding the user's credentials, and every record names both.
 *
 * Policy decided here:
 * - the subject token is an Agentport access token (signed with our keys, our issuer, live), or
 *   one of a configured trusted issuer (`subjectIssuers`, verified at its JWKS, ADR 0039);
 *   `actor_token` is refused: the authenticated client is the actor;
 * - scopes: ⊆ the subject token's ∩ the client's registered `scope` (none asked: that whole
 *   intersection); asking for more is `invalid_scope`, never a silent narrowing;
 * - one audience, ours (`resource` or `audience`; none: the subject token's own);
 * - the issued token carries the subject token's `grant_id`, so revoking the user's grant ends it,
 *   and never outlives the subject token; no refresh token is issued.
 */
import { createLocalJWKSet, decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { ClientInstance, MiddlewareContext, Provider, ResourceServerInfo } from 'oidc-provider';
import type { KeyStore } from '../../core/keys/key-store.js';
import type { SubjectIssuerConfig } from '../../config/oauth-schema.js';
import { ACCESS_TOKEN_TYP } from '../access-tokens.js';
import { ExternalIssuer } from '../jwt-bearer.js';
import type { TokenRevocations } from './token-revocations.js';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

const PARAMETERS = ['subject_token', 'subject_token_type', 'actor_token', 'actor_token_type', 'requested_token_type', 'scope', 'resource', 'audience'];

/** RFC 8693 §4.1: who acts, and (nested) who acted before it. */
export interface ActClaim {
  sub: string;
  act?: unknown;
}

/** What a token this grant is issuing adds to its JWT: read by the JWT customizer (extra claims are rebuilt at save). */
export interface ExchangeClaims {
  act: ActClaim;
  /** the subject token's usecase binding, carried so an exchange never loosens it (a grant's comes from the grant) */
  usecase?: string;
}

const exchanged = new WeakMap<object, ExchangeClaims>();

export function exchangeClaimsOf(token: object): ExchangeClaims | undefined {
  return exchanged.get(token);
}

export interface TokenExchangeOptions {
  keys: KeyStore;
  revocations: TokenRevocations;
  accessTokenTtlSeconds: number;
  /** the same resolution as every other grant's `resource`: throws `invalid_target` for one not ours */
  resourceServerInfo: (ctx: { oidc?: { params?: { scope?: string } } }, resource: string) => Promise<ResourceServerInfo>;
  /** other issuers whose access tokens are taken as subject tokens (`auth.oauth.tokenExchange.subjectIssuers`) */
  subjectIssuers?: readonly SubjectIssuerConfig[];
  errors: {
    InvalidRequest: new (description?: string) => Error;
    InvalidGrant: new () => Error;
    InvalidScope: new (description?: string, scope?: string) => Error;
    InvalidTarget: new (description?: string) => Error;
  };
}

interface ExchangeContext {
  oidc: {
    params: Record<string, unknown>;
    client: ClientInstance;
    entity(name: string, value: unknown): void;
  };
  body: unknown;
}

export function registerTokenExchange(provider: Provider, o: TokenExchangeOptions): void {
  const { InvalidRequest, InvalidGrant, InvalidScope, InvalidTarget } = o.errors;
  const invalidGrant = (why: string) => Object.assign(new InvalidGrant(), { error_description: why });

  const trusted = new Map(
    (o.subjectIssuers ?? []).map((i) => [i.issuer, { audience: i.audience, keys: new ExternalIssuer({ issuer: i.issuer, audience: [], algorithms: ['ES256'], ...(i.jwksUri ? { jwksUri: i.jwksUri } : {}) }, 5000) }]),
  );

  /**
   * A trusted issuer's access token (ADR 0039): verified at its JWKS, meant for us (`aud`), live.
   * Its subject is taken in the issuer's namespace (`iss#sub`), as a bearer token of that issuer
   * would be, so it never becomes a local user of the same name. Its grants are not ours to check.
   */
  const verifyForeignSubject = async (token: string, issuer: string): Promise<JWTPayload & { sub: string }> => {
    const t = trusted.get(issuer)!;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, await t.keys.keys(), { issuer, audience: t.audience ?? provider.issuer, algorithms: ['ES256'], typ: ACCESS_TOKEN_TYP, requiredClaims: ['exp', 'sub'] }));
    } catch (err) {
      throw invalidGrant(err instanceof joseErrors.JWTExpired ? 'subject_token has expired' : `subject_token is not an access token of ${issuer} for this server`);
    }
    if (typeof payload.sub !== 'string' || payload.sub === '') throw invalidGrant('subject_token has no subject');
    const { grant_id: _ours, usecase: _local, ...rest } = payload;
    return { ...rest, sub: `${issuer}#${payload.sub}` };
  };

  const verifySubject = async (token: string): Promise<JWTPayload & { sub: string }> => {
    let claimed: unknown;
    try {
      claimed = decodeJwt(token).iss;
    } catch {
      throw invalidGrant('subject_token is not a JWT');
    }
    if (typeof claimed === 'string' && claimed !== provider.issuer && trusted.has(claimed)) return verifyForeignSubject(token, claimed);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, createLocalJWKSet(await o.keys.jwks()), { issuer: provider.issuer, algorithms: ['ES256'], typ: ACCESS_TOKEN_TYP, requiredClaims: ['exp', 'sub'] }));
    } catch (err) {
      throw invalidGrant(err instanceof joseErrors.JWTExpired ? 'subject_token has expired' : 'subject_token is not an access token issued by this server');
    }
    if (typeof payload.sub !== 'string' || payload.sub === '') throw invalidGrant('subject_token has no subject');
    if (await o.revocations.isRevoked(payload)) throw invalidGrant('subject_token has been revoked');
    return payload as JWTPayload & { sub: string };
  };

  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

  async function tokenExchange(ctx: ExchangeContext): Promise<void> {
    const p = ctx.oidc.params;
    const client = ctx.oidc.client;
    const subjectToken = text(p.subject_token);
    if (subjectToken === undefined) throw new InvalidRequest('missing required parameter subject_token');
    if (text(p.subject_token_type) === undefined) throw new InvalidRequest('missing required parameter subject_token_type');
    if (p.subject_token_type !== ACCESS_TOKEN_TYPE) throw new InvalidRequest(`subject_token_type must be ${ACCESS_TOKEN_TYPE}`);
    if (text(p.actor_token) !== undefined || text(p.actor_token_type) !== undefined) {
      throw new InvalidRequest('actor_token is not supported: the authenticated client is the actor');
    }
    const requestedType = text(p.requested_token_type);
    if (requestedType !== undefined && requestedType !== ACCESS_TOKEN_TYPE) throw new InvalidRequest(`requested_token_type must be ${ACCESS_TOKEN_TYPE}`);
    const resource = text(p.resource);
    const audience = text(p.audience);
    if (resource !== undefined && audience !== undefined && resource !== audience) throw new InvalidTarget('one audience per token: resource and audience differ');

    const subject = await verifySubject(subjectToken);
    const subjectScopes = new Set(typeof subject.scope === 'string' ? subject.scope.split(' ').filter(Boolean) : []);
    // A client registered without `scope` has no ceiling of its own (oidc-provider reads it so too).
    const clientScopes = client.scope ? new Set(client.scope.split(' ')) : undefined;
    const allowed = [...subjectScopes].filter((s) => clientScopes?.has(s) ?? true);
    const asked = text(p.scope)?.split(' ').filter(Boolean);
    const wider = asked?.filter((s) => !allowed.includes(s)) ?? [];
    if (wider.length) throw new InvalidScope('a token exchange cannot widen the subject token: requested scope is not held by both the subject token and the client', wider.join(' '));

    const subjectAudience = Array.isArray(subject.aud) ? subject.aud[0] : subject.aud;
    const target = resource ?? audience ?? subjectAudience;
    if (target === undefined) throw new InvalidTarget('the subject token names no audience; send resource');
    // The scopes in play are the ones the resource is asked about (open-ended usecase scopes are accepted by name).
    const info = await o.resourceServerInfo({ oidc: { params: { scope: (asked ?? allowed).join(' ') } } }, target);
    const usable = new Set(info.scope.split(' '));
    const scopes = [...new Set(asked ?? allowed)].filter((s) => usable.has(s));
    if (scopes.length === 0) throw new InvalidScope('no scope of the subject token is left for this client and audience', asked?.join(' '));

    const remaining = (subject.exp as number) - Math.floor(Date.now() / 1000);
    const token = new provider.AccessToken({
      accountId: subject.sub,
      client,
      ...(typeof subject.grant_id === 'string' && subject.grant_id !== '' ? { grantId: subject.grant_id } : {}),
      gty: 'token_exchange',
      scope: scopes.join(' '),
      resourceServer: new provider.ResourceServer(target, info),
      expiresIn: Math.max(1, Math.min(info.accessTokenTTL ?? o.accessTokenTtlSeconds, remaining)),
    });
    const prior = subject.act;
    exchanged.set(token, {
      act: { sub: `client:${client.clientId}`, ...(prior !== undefined && typeof prior === 'object' ? { act: prior } : {}) },
      ...(typeof subject.usecase === 'string' ? { usecase: subject.usecase } : {}),
    });
    ctx.oidc.entity('AccessToken', token);
    const value = await token.save();
    ctx.body = {
      access_token: value,
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: 'Bearer',
      expires_in: token.expiration,
      scope: token.scope,
    };
  }

  provider.registerGrantType(TOKEN_EXCHANGE_GRANT, tokenExchange, PARAMETERS);
  provider.use(untrustedClientAnswer);
}

/**
 * oidc-provider answers `invalid_request` to an authenticated client using a grant it was not
 * given; RFC 8693 §2.2.2 (by RFC 6749 §5.2) names that `unauthorized_client`, which tells the
 * service what to ask its administrator for. Only this grant's answer is renamed: the other
 * grants keep the answer their clients already handle.
 */
async function untrustedClientAnswer(ctx: MiddlewareContext, next: () => Promise<void>): Promise<void> {
  await next();
  if (ctx.oidc?.route !== 'token' || ctx.oidc.params?.grant_type !== TOKEN_EXCHANGE_GRANT) return;
  const body = ctx.body as { error?: string; error_description?: string } | undefined;
  if (body?.error === 'invalid_request' && body.error_description === GRANT_NOT_ALLOWED) {
    ctx.body = { error: 'unauthorized_client', error_description: 'this client is not allowed to exchange tokens (agentport clients create --token-exchange)' };
  }
}

/** oidc-provider 9's description of the refusal above (lib/actions/token.js, allowedGrantTypeCheck). */
const GRANT_NOT_ALLOWED = 'requested grant type is not allowed for this client';
