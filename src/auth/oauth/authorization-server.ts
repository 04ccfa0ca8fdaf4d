/**
 * Agentport's OAuth 2.1 authorization server: oidc-provider configured for what MCP and A2A
 * clients need (docs/decisions/0008-oauth-authorization-server.md). Everything protocol-shaped is
 * the library's; this file only decides policy: which grants, which scopes, which resources,
 * which redirect URIs, how long things live, and where keys and records come from.
 */
import type { Provider, UnknownObject, ClientInstance, ResourceServerInfo } from 'oidc-provider';
import type { OAuthConfig } from '../../config/oauth-schema.js';
import type { KeyStore } from '../../core/keys/key-store.js';
import type { OAuthStore } from '../../store/oauth-store.js';
import { OAUTH_PATHS, publicPathPrefix } from '../oauth-paths.js';
import { createKeyStoreSigningKey } from './keystore-signing-key.js';
import { loadOidcProvider } from './load-provider.js';
import { isAllowedRedirectUri, redirectUriMatches } from './redirect-uris.js';
import { baseAudience, isOwnResource, type ResourceCatalog } from './resources.js';
import { OFFERED_SCOPES, isUsecaseScope } from './scopes.js';
import { ADMIN_CLIENT_MARKER, ADMINISTRATOR, selfRegisteredScope } from './client-scope-ceiling.js';
import { serverSecret } from './server-secret.js';
import { StoreAdapter } from './store-adapter.js';
import { PAGE_HEADERS } from './html.js';
import { oauthErrorPage } from './interaction-pages.js';
import type { MetadataDocumentFetch } from './client-metadata-fetch.js';
import type { TokenRevocations } from './token-revocations.js';
import { CONSOLE_CLIENT_ID } from '../sessions/console-sessions.js';
import { exchangeClaimsOf, registerTokenExchange, TOKEN_EXCHANGE_GRANT } from './token-exchange-grant.js';

export const INTERACTION_PATH = '/oauth/interaction';

export interface AuthorizationServerOptions {
  issuer: string;
  oauth: OAuthConfig;
  store: OAuthStore;
  keys: KeyStore;
  resources: ResourceCatalog;
  /** fetch for Client ID Metadata Documents (SSRF-guarded) */
  fetchMetadataDocument: MetadataDocumentFetch;
  revocations: TokenRevocations;
  /** accounts signed in at the upstream OpenID Provider or with a token, which have no local user row */
  isUpstreamAccount?: (accountId: string) => boolean;
  /** the usecase a token sign-in bound to an authorization (src/auth/oauth/token-login.ts) */
  usecaseOfGrant?: (grantId: string) => Promise<string | undefined>;
  /** where the web console receives its code (`<public URL>/console/`): registers its first-party client */
  consoleRedirectUri?: string;
}

export interface AuthorizationServer {
  provider: Provider;
  /** HMAC key for the login and consent forms' CSRF tokens */
  formSecret: Buffer;
}

/** Koa-style context as oidc-provider passes it to configuration functions (only what we read). */
interface OidcContext {
  oidc?: { route?: string; params?: { scope?: string } };
}

/**
 * `auth.oauth.defaultClient`: public (PKCE, no secret), code flow, the exact allowed redirect URIs
 * (patterns cannot be registered; loopback ones match on any port), never `admin` (the ceiling of
 * self-registered clients applies: it carries no administrator marker).
 */
function defaultClientMetadata(cfg: OAuthConfig): Record<string, unknown> {
  const exact = cfg.allowedRedirectUris.filter((u) => u !== '*' && !u.endsWith('/*'));
  return {
    client_id: cfg.defaultClient!.id,
    client_name: cfg.defaultClient!.name,
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    redirect_uris: [...exact, 'http://127.0.0.1/callback', 'http://localhost/callback'],
    scope: cfg.defaultScopes.filter((s) => s !== 'admin').join(' '),
  };
}

/**
 * The web console's own client (src/auth/sessions/console-sessions.ts): public (PKCE, no secret),
 * code flow, one exact redirect URI, no refresh tokens (the console keeps a server-side session,
 * not tokens). It is the administrator's client, so its ceiling is every offered scope; each
 * user still receives only the scopes the user holds, and consent is not asked (first party).
 */
function consoleClientMetadata(redirectUri: string): Record<string, unknown> {
  return {
    client_id: CONSOLE_CLIENT_ID,
    client_name: 'Agentport console',
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code'],
    response_types: ['code'],
    redirect_uris: [redirectUri],
    scope: OFFERED_SCOPES.join(' '),
    [ADMIN_CLIENT_MARKER]: ADMINISTRATOR,
  };
}

export async function createAuthorizationServer(o: AuthorizationServerOptions): Promise<AuthorizationServer> {
  const { Provider, ExternalSigningKey, errors } = await loadOidcProvider();
  const signingKey = await createKeyStoreSigningKey(ExternalSigningKey, o.keys);
  // Shared by replicas through the store, so a cookie set by one is read by the next.
  const cookieKey = await serverSecret(o.store, 'cookie-key');
  const formSecret = Buffer.from(await serverSecret(o.store, 'form-key'), 'base64url');
  const cfg = o.oauth;
  const cimd = cfg.clientIdMetadataDocuments;
  // The issuer's path (`/agentport` behind a prefix-stripping proxy): the interaction pages and
  // the cookies live below it, as the browser sees them.
  const pathPrefix = publicPathPrefix(o.issuer);

  const redirectPolicy = (uris: readonly string[]) => {
    const refused = uris.find((u) => !isAllowedRedirectUri(u, cfg.allowedRedirectUris));
    if (refused !== undefined) {
      throw new errors.InvalidRedirectUri(`redirect_uri ${refused} is not allowed here: use a loopback address or one the server lists in auth.oauth.allowedRedirectUris`);
    }
  };

  const resourceServerInfo = async (ctx: OidcContext, resource: string): Promise<ResourceServerInfo> => {
    if (!isOwnResource(o.resources, resource)) throw new errors.InvalidTarget('resource is not served by this server');
    await signingKey.refresh();
    // mcp:tools:<usecase> scopes are open-ended, so the requested ones are accepted by name.
    const usecaseScopes = (ctx.oidc?.params?.scope ?? '').split(' ').filter(isUsecaseScope);
    return {
      scope: [...OFFERED_SCOPES, ...usecaseScopes].join(' '),
      audience: resource.replace(/\/$/, ''),
      accessTokenTTL: cfg.accessTokenTtlSeconds,
      accessTokenFormat: 'jwt',
      jwt: { sign: { alg: 'ES256' } },
    };
  };

  const provider = new Provider(o.issuer, {
    adapter: (name: string) => new StoreAdapter(name, o.store, (grantId) => o.revocations.grantRevoked(grantId)),
    // Every outbound fetch (metadata documents) through the SSRF guard with pinned addresses.
    fetch: (url: string | URL, init: { method?: string; headers?: HeadersInit; signal?: AbortSignal }) => o.fetchMetadataDocument.fetch(url, init),
    jwks: { keys: [signingKey] },
    // The session cookie below the public URL's path. The short-lived ones (interaction, resume)
    // get their own paths from the interaction and resume URLs; a `short.path` would override them.
    cookies: { keys: [cookieKey], long: { httpOnly: true, sameSite: 'lax', path: `${pathPrefix}/` } },
    routes: {
      authorization: OAUTH_PATHS.authorize,
      token: OAUTH_PATHS.token,
      registration: OAUTH_PATHS.register,
      revocation: OAUTH_PATHS.revoke,
      introspection: OAUTH_PATHS.introspect,
      jwks: OAUTH_PATHS.jwks,
      userinfo: '/oauth/userinfo',
      end_session: '/oauth/logout',
      pushed_authorization_request: '/oauth/par',
      code_verification: '/oauth/device',
      device_authorization: '/oauth/device/auth',
      backchannel_authentication: '/oauth/backchannel',
      challenge: '/oauth/challenge',
    },
    scopes: ['openid', 'offline_access', ...OFFERED_SCOPES],
    // The pre-registered public client of connectors that do not register (auth.oauth.defaultClient).
    // And the web console's client, when the server serves the console.
    clients: [...(cfg.defaultClient ? [defaultClientMetadata(cfg)] : []), ...(o.consoleRedirectUri ? [consoleClientMetadata(o.consoleRedirectUri)] : [])],
    claims: { openid: ['sub'] },
    responseTypes: ['code'],
    // OAuth 2.1: PKCE for every authorization code, S256 only (oidc-provider 9 knows no `plain`).
    pkce: { required: () => true },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      id_token_signed_response_alg: 'ES256',
    },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      externalSigningSupport: { enabled: true, ack: 'experimental-01' },
      registration: {
        enabled: cfg.registration,
        initialAccessToken: false,
      },
      clientIdMetadataDocument: {
        enabled: cimd.enabled,
        ack: 'draft-02',
        allowFetch: async (_ctx: unknown, clientId: string) => o.fetchMetadataDocument.allowed(clientId),
        allowClient: async (_ctx: unknown, client: ClientInstance) => {
          redirectPolicy(client.redirectUris ?? []);
          const grants = client.grantTypes ?? [];
          return !grants.includes('client_credentials') && !grants.includes(TOKEN_EXCHANGE_GRANT);
        },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => baseAudience(o.resources),
        useGrantedResource: () => true,
        getResourceServerInfo: resourceServerInfo,
      },
    },
    extraClientMetadata: {
      // Called in this order whenever a client is built: at registration, on every load from the
      // store, and for every metadata document.
      properties: ['redirect_uris', ADMIN_CLIENT_MARKER, 'scope'],
      validator(ctx: OidcContext | undefined, key: string, value: unknown, metadata: UnknownObject) {
        const registering = ctx?.oidc?.route === 'registration';
        // Dynamic registration: only loopback and the listed redirect URIs, and no machine grants
        // (client credentials clients are created by an administrator).
        if (registering && key === 'redirect_uris') {
          redirectPolicy(Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
          const grants = metadata.grant_types;
          if (Array.isArray(grants) && grants.includes('client_credentials')) {
            throw new errors.InvalidClientMetadata('client_credentials clients are created by an administrator (agentport clients create)');
          }
          if (Array.isArray(grants) && grants.includes(TOKEN_EXCHANGE_GRANT)) {
            throw new errors.InvalidClientMetadata('token exchange clients are created by an administrator (agentport clients create --token-exchange)');
          }
          const scope = typeof metadata.scope === 'string' ? metadata.scope.split(' ') : [];
          if (scope.includes('admin')) throw new errors.InvalidClientMetadata('the admin scope cannot be registered dynamically');
        }
        // The administrator's marker is written by client-registry.ts straight into the store; a
        // registration request or a metadata document that carries it claims what it is not.
        if (key === ADMIN_CLIENT_MARKER && value !== undefined && (registering || URL.canParse(String(metadata.client_id)))) {
          throw new errors.InvalidClientMetadata(`${ADMIN_CLIENT_MARKER} cannot be set by a client`);
        }
        if (key === 'scope' && metadata[ADMIN_CLIENT_MARKER] !== ADMINISTRATOR) metadata.scope = selfRegisteredScope(value);
      },
    },
    // Refresh tokens for every client allowed the grant (MCP clients do not ask offline_access);
    // rotated on each use, and a replayed one revokes its whole grant (oidc-provider's reuse
    // detection: the consumed token's grant is revoked).
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(t: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    ttl: {
      AccessToken: cfg.accessTokenTtlSeconds,
      ClientCredentials: cfg.accessTokenTtlSeconds,
      AuthorizationCode: 60,
      Interaction: 600,
      Session: 8 * 3600,
      Grant: cfg.refreshTokenTtlSeconds,
      RefreshToken: cfg.refreshTokenTtlSeconds,
    },
    // The grant id travels in the token so the resource server can refuse tokens of a revoked
    // grant (logout, revocation, refresh replay) although they are stateless JWTs.
    // A token sign-in's usecase travels too: its holder sees that usecase only (core/authz/scopes.ts).
    extraTokenClaims: async (_ctx: unknown, token: { grantId?: string }) => {
      if (!token.grantId) return undefined;
      const usecase = await o.usecaseOfGrant?.(token.grantId);
      return { grant_id: token.grantId, ...(usecase ? { usecase } : {}) };
    },
    formats: {
      customizers: {
        // A client-credentials token acts for the client itself; its subject is namespaced so a
        // client id can never collide with a user name (tasks are owned by the subject).
        // A token exchange names its actor (RFC 8693 §4.1, token-exchange-grant.ts).
        jwt: async (_ctx: unknown, token: { accountId?: string; clientId?: string }, jwt: { payload: UnknownObject }) => {
          if (!token.accountId && token.clientId) jwt.payload.sub = `client:${token.clientId}`;
          const exchange = exchangeClaimsOf(token);
          if (exchange) {
            jwt.payload.act = exchange.act;
            if (exchange.usecase !== undefined) jwt.payload.usecase ??= exchange.usecase;
          }
        },
      },
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `${pathPrefix}${INTERACTION_PATH}/${interaction.uid}` },
    // A deleted user's provider session, grants and refresh tokens lead nowhere: no account, so
    // oidc-provider asks for a new login and refuses the refresh (the store revokes them too).
    findAccount: async (_ctx: unknown, sub: string) => (o.isUpstreamAccount?.(sub) || (await o.store.getUser(sub)) ? { accountId: sub, claims: async () => ({ sub }) } : undefined),
    // Browser-based clients (the MCP Inspector) call the token endpoint cross-origin; tokens are
    // bound by PKCE and client auth, never by the Origin.
    clientBasedCORS: () => true,
    // The same page frame as the login page; the same headers too (no script, not framed).
    renderError: async (ctx: { type: string; body: string; set(h: Record<string, string>): void }, out: { error: string; error_description?: string }) => {
      ctx.set({ ...PAGE_HEADERS });
      ctx.type = 'html';
      ctx.body = oauthErrorPage(out);
    },
  });

  // Loopback redirect URIs match on any port for every client (RFC 8252 §7.3; oidc-provider does
  // it only for `application_type: native`, and MCP clients register as `web`).
  provider.Client.prototype.redirectUriAllowed = function redirectUriAllowed(this: ClientInstance, value: string) {
    return (this.redirectUris ?? []).some((registered) => redirectUriMatches(registered, value));
  };
  registerTokenExchange(provider, { keys: o.keys, revocations: o.revocations, accessTokenTtlSeconds: cfg.accessTokenTtlSeconds, resourceServerInfo, subjectIssuers: cfg.tokenExchange.subjectIssuers, errors });
  return { provider, formSecret };
}
