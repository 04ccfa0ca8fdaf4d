/**
 * The OAuth face of the HTTP listener (a Face of src/edge, like the A2A and MCP endpoints): RFC 9728
 * protected resource metadata, RFC 8414 / OIDC discovery under every name clients try, the
 * authorization server's endpoints (`/oauth/*`, oidc-provider), the login and consent pages, and
 * the routes of the service Agentport replaces (`/mcp/oauth/*`, the `/mcp/config/` page).
 *
 * The authorization server is built on the first request that needs it (after the listener is
 * bound, since the issuer is the public URL, which knows the port only then), and oidc-provider is
 * loaded only then, so a server with `auth.oauth.enabled: false` never loads it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Face, RequestContext } from '../../edge/face.js';
import { loginMethods, type OAuthConfig } from '../../config/oauth-schema.js';
import { DEFAULT_CLOCK_SKEW_SECONDS, type ExternalIssuerConfig } from '../../config/config.js';
import { createTokenLogin } from './token-login.js';
import { isFormBody, readReplay, withClientCredentialsScope, type ClientScopeLookup } from './client-credentials-scope.js';
import { isJsonBody, rewriteJsonTokenRequest } from './json-token-request.js';
import type { KeyStore } from '../../core/keys/key-store.js';
import type { AuditSink } from '../../core/audit/audit-event.js';
import type { OAuthStore } from '../../store/oauth-store.js';
import { issuerOf, OAUTH_PATHS, perPublicUrl, publicPathPrefix } from '../oauth-paths.js';
import { consoleUrlOf } from '../sessions/console-sessions.js';
import { createAuthorizationServer, INTERACTION_PATH, type AuthorizationServer } from './authorization-server.js';
import { createMetadataDocumentFetch } from './client-metadata-fetch.js';
import { clientAddressOf } from './client-address.js';
import { CONFIG_PATH, configSessions, serveConfigPage } from './config-page.js';
import { serveInteraction } from './interaction-endpoint.js';
import { LoginThrottle } from './login-throttle.js';
import type { BrowserSessions } from '../sessions/browser-sessions.js';
import { metadataRequestPath, protectedResourceMetadata } from './protected-resource-metadata.js';
import type { ResourceCatalog } from './resources.js';
import { structuredTokenRequests } from './structured-token-requests.js';
import { auditTokenEvents } from './token-audit.js';
import type { TokenRevocations } from './token-revocations.js';
import { messagePage, PAGE_HEADERS } from './interaction-pages.js';
import { createUpstreamLogin, UPSTREAM_CALLBACK_PATH, UpstreamLoginError, type UpstreamLogin } from './upstream-login.js';

export interface OAuthEndpointDeps {
  oauth: OAuthConfig;
  /** the public URL, known once the listener is bound */
  publicUrl: () => string;
  store: OAuthStore;
  keys: KeyStore;
  resources: ResourceCatalog;
  agentName: (id: string) => string | undefined;
  log: { warn(o: object, m?: string): void; error(o: object, m?: string): void };
  /** `auth.issuers[].issuer`: listed as authorization servers in the RFC 9728 documents */
  externalIssuers?: readonly string[];
  /** the resource server's revocation checks (shared with the Authenticator) */
  revocations: TokenRevocations;
  /** `auth.issuers`: the identity providers whose tokens the token sign-in accepts */
  issuers?: readonly ExternalIssuerConfig[];
  clockSkewSeconds?: number;
  /** management requests under /mcp/oauth/clients (admin), answered by the management routes */
  clientsRoute?: (req: IncomingMessage, res: ServerResponse, clientId: string | undefined) => Promise<void>;
  /** sign-ins, consent and token events (src/core/audit) */
  audit?: AuditSink;
}

const DISCOVERY = OAUTH_PATHS.openidConfiguration;
const AS_METADATA = OAUTH_PATHS.authorizationServerMetadata;
/** Paths of the service Agentport replaces, and where they live now. */
const COMPAT: Record<string, string> = {
  '/mcp/oauth/register': OAUTH_PATHS.register,
  '/mcp/oauth/authorize': OAUTH_PATHS.authorize,
  '/mcp/oauth/token': OAUTH_PATHS.token,
  '/mcp/oauth/metadata': DISCOVERY,
};
/** Under it: the COMPAT paths and the client management routes. */
const MCP_OAUTH = '/mcp/oauth/';
const INTERACTION_PREFIX = `${INTERACTION_PATH}/`;
const CONFIG_PREFIX = `${CONFIG_PATH}/`;

/**
 * The methods each oidc-provider endpoint answers (a CORS preflight, an OPTIONS request with
 * `Access-Control-Request-Method`, always goes to the provider). Anything else, a bare OPTIONS
 * included, gets a JSON 405 with `Allow` here; oidc-provider itself would answer a plain-text 404,
 * which clients cannot tell from a missing endpoint. The authorization endpoint is GET only
 * (RFC 6749 §3.1 makes POST optional; the provider's `enableHttpPostMethods` is off).
 */
const PROVIDER_METHODS: Record<string, readonly string[]> = {
  [OAUTH_PATHS.authorize]: ['GET'],
  [OAUTH_PATHS.token]: ['POST'],
  [OAUTH_PATHS.register]: ['POST'],
  [OAUTH_PATHS.revoke]: ['POST'],
  [OAUTH_PATHS.introspect]: ['POST'],
  '/oauth/par': ['POST'],
  [DISCOVERY]: ['GET', 'HEAD'],
};

function sendJson(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

/** RFC 8414 / OIDC discovery requests, under every name clients try, for an issuer without a path. */
function isDiscoveryPath(path: string): boolean {
  for (const name of [AS_METADATA, DISCOVERY, '/.well-known/openid_configuration']) {
    // root, path-inserted (RFC 8414 §3.1: /.well-known/x/mcp) and path-appended (OIDC: /mcp/.well-known/x)
    if (path === name || path.startsWith(`${name}/`) || path.endsWith(name)) return true;
  }
  return false;
}

/** Which OAuth request a path is; decided by `match`, before the start gate. */
export type OAuthRoute =
  | { kind: 'resource-metadata'; resourcePath: string }
  /** to oidc-provider, under its own path (`target`: a compat or discovery path rewritten to it) */
  | { kind: 'provider'; target?: string }
  | { kind: 'interaction'; uid: string; step: string | undefined }
  | { kind: 'upstream-callback' }
  | { kind: 'config-page'; sub: string }
  | { kind: 'clients'; clientId: string | undefined };

export function createOAuthEndpoint(d: OAuthEndpointDeps): Face<OAuthRoute> {
  let server: Promise<{ as: AuthorizationServer; sessions: BrowserSessions; handle: (req: IncomingMessage, res: ServerResponse) => void }> | undefined;
  // The issuer is the public URL, path included (RFC 8414 §2: an issuer may have a path).
  const issuer = () => issuerOf(d.publicUrl());
  // Asked by `match` on every request the faces before A2A did not take: parsed once per public URL.
  const pathPrefix = perPublicUrl(d.publicUrl, publicPathPrefix);
  const revocations = d.revocations;
  const throttle = new LoginThrottle();
  const clientAddress = clientAddressOf(d.oauth.trustedProxies);
  const methods = loginMethods(d.oauth);
  const upstream = d.oauth.upstream && methods.has('upstream') ? createUpstreamLogin({ config: d.oauth.upstream, store: d.store, publicUrl: issuer, log: d.log }) : undefined;
  const tokenLogin = methods.has('token') ? createTokenLogin({ issuers: d.issuers ?? [], keys: d.keys, store: d.store, clockSkewSeconds: d.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS }) : undefined;
  const autoApprove = d.oauth.tokenLogin.autoApprove;

  // Built on first use, once started (the edge's start gate comes first): the issuer is the bound public URL.
  const build = () => {
    server ??= (async () => {
      const cimd = d.oauth.clientIdMetadataDocuments;
      const as = await createAuthorizationServer({
        issuer: issuer(),
        // The web console's first-party client (src/auth/sessions/console-sessions.ts).
        consoleRedirectUri: consoleUrlOf(d.publicUrl()),
        oauth: d.oauth,
        store: d.store,
        keys: d.keys,
        resources: d.resources,
        revocations,
        ...(upstream || tokenLogin ? { isUpstreamAccount: (id: string) => upstream?.scopesOf(id) !== undefined || tokenLogin?.isAccount(id) === true } : {}),
        ...(tokenLogin ? { usecaseOfGrant: (grantId: string) => tokenLogin.usecaseOfGrant(grantId) } : {}),
        fetchMetadataDocument: createMetadataDocumentFetch({ allowLoopbackHosts: cimd.allowLoopbackHosts, ...(cimd.trustedCaFile ? { trustedCaFile: cimd.trustedCaFile } : {}) }),
      });
      // Requests are presented as made to the public URL (asSeenPublicly), so discovery documents
      // and redirects name https://public-host even behind a TLS-terminating proxy.
      as.provider.proxy = true;
      if (d.audit) auditTokenEvents(as.provider, d.audit, clientAddress);
      as.provider.use(structuredTokenRequests({ issuer: issuer(), keys: d.keys, revocations }));
      return { as, sessions: configSessions(d.store, as.formSecret), handle: as.provider.callback() };
    })().catch((err: unknown) => {
      server = undefined; // retried on the next request
      throw err;
    });
    return server;
  };

  const clientScopes: ClientScopeLookup = {
    defaultScopes: d.oauth.defaultScopes,
    async registeredScope(clientId) {
      const client = await d.store.findRecord('Client', clientId, Date.now());
      if (!client) return undefined;
      return typeof client.payload.scope === 'string' ? client.payload.scope : '';
    },
  };

  const toProvider = async (req: IncomingMessage, res: ServerResponse, ctx: RequestContext, rewrittenPath?: string): Promise<void> => {
    const target = rewrittenPath ?? ctx.path;
    // `/oauth/authorize/{uid}`: where oidc-provider resumes an authorization after the login and
    // consent pages (a redirect, so GET).
    const methods = target.startsWith(`${OAUTH_PATHS.authorize}/`) ? ['GET'] : PROVIDER_METHODS[target];
    if (methods === undefined) return sendJson(res, 404, { error: 'not_found', error_description: 'No such OAuth endpoint' });
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    if (!preflight && !methods.includes(req.method ?? '')) {
      return sendJson(res, 405, { error: 'method_not_allowed', error_description: `Use ${methods.join(' or ')}` }, { Allow: methods.join(', ') });
    }
    // A JSON body at the token endpoint is rewritten into its form request first (json-token-request.ts).
    const tokenRequest = target === OAUTH_PATHS.token && req.method === 'POST';
    const jsonToken = tokenRequest && isJsonBody(req) ? rewriteJsonTokenRequest(req, (limit) => ctx.body(limit)) : Promise.resolve({ req });
    const [{ handle }, rewritten] = await Promise.all([build(), jsonToken]);
    if (!('req' in rewritten)) return sendJson(res, 400, rewritten);
    // A client-credentials request without scope gets the client's (client-credentials-scope.ts).
    // A JSON request was replayed as a form already: its body is read from the replay.
    const readBody = rewritten.req === req ? (limit: number) => ctx.body(limit) : () => readReplay(rewritten.req);
    const scoped = tokenRequest && isFormBody(rewritten.req) ? await withClientCredentialsScope(rewritten.req, readBody, clientScopes) : rewritten;
    if (!('req' in scoped)) return sendJson(res, 400, scoped);
    const forwarded = scoped.req;
    if (rewrittenPath !== undefined) {
      const q = (forwarded.url ?? '').indexOf('?');
      forwarded.url = rewrittenPath + (q < 0 ? '' : (forwarded.url ?? '').slice(q));
    }
    if (forwarded.method === 'GET' && forwarded.url?.startsWith(`${OAUTH_PATHS.authorize}?`)) forwarded.url = withDefaultScope(forwarded.url, d.oauth.defaultScopes);
    asSeenPublicly(forwarded, d.publicUrl());
    handle(forwarded, res);
  };

  const resourceMetadata = (req: IncomingMessage, res: ServerResponse, resourcePath: string): void => {
    const authorizationServers = [...(d.oauth.enabled ? [issuer()] : []), ...(d.externalIssuers ?? [])];
    const doc = protectedResourceMetadata({ publicUrl: d.publicUrl(), authorizationServers, resourcePath, agentName: d.agentName });
    // Public documents read by browser-based clients (MCP Inspector); /.well-known/* already has
    // CORS from the MCP endpoint, the path-appended variant gets it here.
    const origin = req.headers.origin;
    if (origin && !res.hasHeader('Access-Control-Allow-Origin')) res.setHeader('Access-Control-Allow-Origin', origin).setHeader('Vary', 'Origin');
    res.writeHead(doc ? 200 : 404, { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300' });
    res.end(JSON.stringify(doc ?? { error: 'not_found', error_description: 'No protected resource at this path' }));
  };

  return {
    name: 'oauth',
    match(req, path): OAuthRoute | undefined {
      const prm = metadataRequestPath(path, pathPrefix());
      if (prm !== undefined) return req.method === 'GET' || req.method === 'HEAD' ? { kind: 'resource-metadata', resourcePath: prm } : undefined;
      // With the authorization server off, only the RFC 9728 documents above are served (they name
      // the external issuers, if any): every 401 points at them.
      if (!d.oauth.enabled) return undefined;
      if (path.startsWith('/.well-known/') || path.includes('/.well-known/')) return isDiscoveryPath(path) ? { kind: 'provider', target: DISCOVERY } : undefined;
      if (path.startsWith(INTERACTION_PREFIX)) {
        const [uid, step] = path.slice(INTERACTION_PATH.length + 1).split('/');
        return { kind: 'interaction', uid: uid ?? '', step };
      }
      if (path === UPSTREAM_CALLBACK_PATH) return upstream ? { kind: 'upstream-callback' } : undefined;
      if (path.startsWith('/oauth/')) return { kind: 'provider' };
      if (path === CONFIG_PATH || path.startsWith(CONFIG_PREFIX)) return { kind: 'config-page', sub: path.slice(CONFIG_PATH.length) };
      // Asked for every A2A and MCP call (the faces after this one): those end here, without the
      // property lookup by an arbitrary string below (issue 26, CPU a request with authentication on).
      if (!path.startsWith(MCP_OAUTH)) return undefined;
      const compat = COMPAT[path.endsWith('/') ? path.slice(0, -1) : path];
      if (compat !== undefined) return { kind: 'provider', target: compat };
      if (d.clientsRoute && (path === '/mcp/oauth/clients' || path.startsWith('/mcp/oauth/clients/'))) {
        const id = path.slice('/mcp/oauth/clients/'.length) || undefined;
        return { kind: 'clients', clientId: id && safeDecode(id) };
      }
      return undefined;
    },
    async serve(req, res, ctx, route) {
      switch (route.kind) {
        case 'resource-metadata':
          return resourceMetadata(req, res, route.resourcePath);
        case 'provider':
          return toProvider(req, res, ctx, route.target);
        case 'interaction': {
          const { as } = await build();
          return serveInteraction(
            {
              provider: as.provider,
              formSecret: as.formSecret,
              pathPrefix: pathPrefix(),
              store: d.store,
              defaultScopes: d.oauth.defaultScopes,
              throttle,
              clientAddress,
              localUsers: methods.has('password'),
              ...(upstream ? { upstream } : {}),
              ...(tokenLogin
                ? {
                    tokenLogin: {
                      login: tokenLogin,
                      grantTtlSeconds: d.oauth.refreshTokenTtlSeconds,
                      ...(autoApprove ? { autoApprove: { token: autoApprove.token, ...(autoApprove.usecase ? { usecase: autoApprove.usecase } : {}) } } : {}),
                    },
                  }
                : {}),
              log: d.log,
              ...(d.audit ? { audit: d.audit } : {}),
            },
            req,
            res,
            route.uid,
            route.step,
            (limit) => ctx.body(limit),
          );
        }
        case 'upstream-callback':
          return upstreamCallback(upstream!, pathPrefix(), req, res);
        case 'config-page': {
          const { sessions } = await build();
          return serveConfigPage(
            { store: d.store, throttle, clientAddress, secureCookies: d.publicUrl().startsWith('https:'), pathPrefix: pathPrefix(), ...(d.audit ? { audit: d.audit } : {}) },
            sessions,
            req,
            res,
            route.sub,
            (limit) => ctx.body(limit),
          );
        }
        case 'clients':
          return d.clientsRoute!(req, res, route.clientId);
      }
    },
    // Not started, or the request failed (the authorization server could not be built): RFC 6749's error shape.
    reject: (_req, res) => sendJson(res, 503, { error: 'temporarily_unavailable', error_description: 'The authorization server is not available' }),
  };
}

/**
 * Where the upstream sends the browser back: once the account is verified, on to the interaction
 * (whose cookie is scoped to its own path) to finish the login there.
 */
async function upstreamCallback(upstream: UpstreamLogin, pathPrefix: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'GET') {
    res.writeHead(405, { ...PAGE_HEADERS, Allow: 'GET' });
    return void res.end(messagePage('Not allowed', 'The sign-in callback is reached by a redirect.'));
  }
  try {
    const { uid, state } = await upstream.complete(new URL(req.url ?? '/', 'http://callback'), req.headers.cookie);
    res.writeHead(303, { Location: `${pathPrefix}${INTERACTION_PATH}/${encodeURIComponent(uid)}/upstream-done?state=${encodeURIComponent(state)}`, 'Set-Cookie': upstream.clearCookie, 'Cache-Control': 'no-store' });
    res.end();
  } catch (err) {
    if (!(err instanceof UpstreamLoginError)) throw err;
    // The binding cookie stays: a forged callback must not spoil the sign-in under way.
    res.writeHead(err.status, PAGE_HEADERS);
    res.end(messagePage('Sign-in failed', err.message));
  }
}

/**
 * Clients that send no `scope` get the configured default scopes: MCP clients often send none and
 * would otherwise get a token that can do nothing. Applied to the request before oidc-provider
 * reads it, so the consent page shows what will be granted.
 */
function withDefaultScope(url: string, defaults: readonly string[]): string {
  const q = url.indexOf('?');
  const params = new URLSearchParams(url.slice(q + 1));
  if (params.get('scope')?.trim() || params.has('request') || params.has('request_uri')) return url;
  params.set('scope', defaults.join(' '));
  return `${url.slice(0, q)}?${params.toString()}`;
}

/**
 * oidc-provider builds endpoint URLs from the request's host, scheme and mount path. The issuer is
 * the public URL, so every request is presented as made to it (whatever a proxy or the client said): a
 * server behind a TLS proxy still advertises https endpoints, and a forged Host cannot change them.
 */
function asSeenPublicly(req: IncomingMessage & { originalUrl?: string }, publicUrl: string): void {
  const u = new URL(publicUrl);
  req.headers['x-forwarded-proto'] = u.protocol.slice(0, -1);
  req.headers['x-forwarded-host'] = u.host;
  // Behind a proxy that strips a path prefix, the request arrives without it. oidc-provider takes
  // the path its endpoints are mounted at from `originalUrl` (as Express sets it for mounted apps),
  // so its discovery document, redirects and cookie paths name the prefixed URLs.
  const prefix = publicPathPrefix(publicUrl);
  if (prefix !== '') req.originalUrl = `${prefix}${req.url ?? '/'}`;
}

function safeDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}
