/**
 * `auth.oauth`: Agentport's own OAuth 2.1 authorization server (src/auth/oauth). Its own file so
 * the server's options grow without touching the rest of the schema; docs/configuration.md and
 * docs/auth.md describe every key.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { bool, integer, nonEmptyString } from './primitives.js';

/**
 * Redirect URIs that dynamically registered and metadata-document clients may use besides loopback
 * ones. The defaults are the hosted MCP clients' callbacks, as their vendors document them:
 * ChatGPT connectors, and Claude (claude.ai, and claude.com which Anthropic announced as its next
 * callback host).
 */
export const DEFAULT_ALLOWED_REDIRECT_URIS = [
  'https://chatgpt.com/connector_platform_oauth_redirect',
  // ChatGPT apps: one callback per app, its id shown when the app is created (the `{callback_id}`
  // that /.well-known/mcp-metadata advertises); `/*` allows one path segment there.
  'https://chatgpt.com/connector/oauth/*',
  'https://claude.ai/api/mcp/auth_callback',
  'https://claude.com/api/mcp/auth_callback',
  // The callbacks the replaced service registered for its connectors (docs/migrating-from-novaeden.md).
  'https://chatgpt.com/aip/mcp/oauth/callback',
  'https://chat.openai.com/aip/mcp/oauth/callback',
  'https://claude.ai/api/mcp/oauth/callback',
] as const;

/** How people sign in on the authorization page (auth.oauth.login). */
export const LOGIN_METHODS = ['password', 'upstream', 'token'] as const;

const usecaseId = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, { message: 'must be lowercase letters, digits, - and _' });

/**
 * `auth.oauth.tokenLogin`: sign-in with a bearer token of an external issuer (`auth.issuers`) and a
 * usecase, as the replaced service's authorization page did (src/auth/oauth/token-login.ts).
 */
const tokenLoginSchema = z
  .object({
    /**
     * Staging only: every authorization request is signed in with this token and approved without
     * a page. Refused on a non-loopback host unless `allowPublicBind` (anyone reaching the server
     * would get its rights).
     */
    autoApprove: z
      .object({
        /** write it as ${ENV_VAR} */
        token: nonEmptyString,
        /** absent: taken from the token's `mcp:tools:<usecase>` scope */
        usecase: usecaseId.optional(),
        allowPublicBind: bool.default(false),
      })
      .strict()
      .optional(),
  })
  .strict();

/** `auth.oauth.defaultClient`: a pre-registered public client for connectors that do not register. */
const defaultClientSchema = z
  .object({
    id: z
      .string()
      .regex(/^[A-Za-z0-9._~-]{1,100}$/, { message: 'must be 1-100 letters, digits, . _ ~ -' })
      .default('novaeden-mcp-default'),
    name: nonEmptyString.max(100).default('MCP connector'),
  })
  .strict();

export const DEFAULT_OAUTH_SCOPES = ['a2a:discover', 'a2a:publish', 'mcp:tools'] as const;

const redirectPattern = nonEmptyString.refine((v) => v === '*' || (URL.canParse(v) && /^https?:/.test(v)), {
  message: 'must be an http(s) URL, or * for any https URL',
});

const cimdSchema = z
  .object({
    enabled: bool.default(true),
    /** tests only: fetch metadata documents from loopback hosts (the SSRF guard refuses them otherwise) */
    allowLoopbackHosts: bool.default(false),
    /** a PEM file of extra CA certificates trusted for metadata documents (tests, private PKI) */
    trustedCaFile: nonEmptyString.optional(),
  })
  .strict();

/**
 * `auth.oauth.upstream`: the login delegated to an upstream OpenID Provider (src/auth/oauth/upstream-login.ts).
 * Accounts signed in this way are `<issuer>#<subject>`, as tokens of `auth.issuers` are.
 */
const upstreamSchema = z
  .object({
    /** exact issuer identifier; `<issuer>/.well-known/openid-configuration` must name it */
    issuer: nonEmptyString.refine((v) => URL.canParse(v) && /^https?:/.test(v), { message: 'must be an http(s) URL' }),
    clientId: nonEmptyString,
    /** absent: a public client (PKCE only); write it as ${ENV_VAR} */
    clientSecret: nonEmptyString.optional(),
    /** requested at the upstream; `openid` is always added */
    scopes: z.array(nonEmptyString).default(['openid', 'email']),
    /** ID token claim that names the account (`<issuer>#<value>`) */
    subjectClaim: nonEmptyString.default('sub'),
    /** only these subject values may sign in */
    allowedSubjects: z.array(nonEmptyString).optional(),
    /** only ID tokens with `email_verified: true` and an email in one of these domains may sign in */
    allowedDomains: z.array(nonEmptyString).optional(),
    /** the button reads "Sign in with <label>" */
    label: nonEmptyString.max(64).optional(),
    /** scopes an upstream account may grant to clients (what `agentport users create --scopes` is for local users) */
    userScopes: z.array(nonEmptyString).min(1).default(['a2a:discover', 'a2a:publish', 'mcp:tools']),
    /** hosts or CIDRs the SSRF guard lets through (an upstream on a private network; tests: loopback); http is accepted only for these */
    allowHosts: z.array(nonEmptyString).default([]),
  })
  .strict()
  .refine((u) => u.issuer.startsWith('https:') || u.allowHosts.length > 0, { message: 'an http issuer needs its host in allowHosts', path: ['issuer'] });

/**
 * RFC 8693 at our token endpoint (ADR 0043, 0039): other issuers whose access tokens a trusted
 * client may present as `subject_token`, e.g. another Agentport acting for its callers. Their
 * subjects live in the issuer's namespace (`iss#sub`), as for external bearer tokens.
 */
const subjectIssuerSchema = z
  .object({
    /** compared byte for byte with the subject token's `iss` */
    issuer: nonEmptyString.refine((v) => /^https?:\/\/[^\s#]+$/i.test(v) && URL.canParse(v), { message: 'must be an absolute http:// or https:// URL, as the issuer writes it in `iss`' }),
    /** where its keys are; absent: its OpenID discovery document names them */
    jwksUri: nonEmptyString.refine((v) => /^https?:\/\//i.test(v) && URL.canParse(v), { message: 'must be an absolute http:// or https:// URL' }).optional(),
    /** the subject token's required `aud`; absent: this server's issuer (the token is meant for this STS) */
    audience: nonEmptyString.optional(),
  })
  .strict();

const tokenExchangeSchema = z
  .object({
    subjectIssuers: z.array(subjectIssuerSchema).default([]),
  })
  .strict();

export const oauthSchema = z
  .object({
    enabled: bool.default(true),
    /** access token lifetime */
    accessTokenTtlSeconds: integer(60, 86_400).default(3600),
    /** refresh token lifetime (each rotation starts a new one, within the grant's lifetime) */
    refreshTokenTtlSeconds: integer(300, 365 * 86_400).default(30 * 86_400),
    /** granted when a client asks for no scope */
    defaultScopes: z
      .array(nonEmptyString)
      .min(1)
      .default([...DEFAULT_OAUTH_SCOPES]),
    /** RFC 7591 dynamic client registration (open, as MCP clients expect) */
    registration: bool.default(true),
    /** extra redirect URIs allowed for registered and metadata-document clients; loopback is always allowed */
    allowedRedirectUris: z.array(redirectPattern).default([...DEFAULT_ALLOWED_REDIRECT_URIS]),
    clientIdMetadataDocuments: cimdSchema.default({}),
    /** the username and password form for local users; off: only the upstream sign-in */
    localUsers: bool.default(true),
    /**
     * addresses of reverse proxies in front of the server: a sign-in arriving from one of them is
     * counted against the address in its X-Forwarded-For (the sign-in throttle, src/auth/oauth/client-address.ts)
     */
    trustedProxies: z.array(nonEmptyString.refine((v) => isIP(v) !== 0, { message: 'must be an IP address' })).default([]),
    upstream: upstreamSchema.optional(),
    /** the sign-in methods offered; absent: password (unless localUsers: false) and upstream (when configured) */
    login: z.array(z.enum(LOGIN_METHODS)).min(1).optional(),
    tokenLogin: tokenLoginSchema.default({}),
    defaultClient: defaultClientSchema.optional(),
    tokenExchange: tokenExchangeSchema.default({}),
  })
  .strict()
  .refine((o) => !o.login?.includes('upstream') || o.upstream !== undefined, { message: 'upstream sign-in needs auth.oauth.upstream', path: ['login'] })
  .refine((o) => o.tokenLogin.autoApprove === undefined || o.login?.includes('token'), { message: 'autoApprove signs in with a token: add token to auth.oauth.login', path: ['tokenLogin', 'autoApprove'] })
  .refine((o) => o.login !== undefined || o.localUsers || o.upstream !== undefined, { message: 'localUsers: false needs an upstream to sign in with (or auth.oauth.login)', path: ['localUsers'] });

export type OAuthConfig = z.output<typeof oauthSchema>;
export type UpstreamLoginConfig = z.output<typeof upstreamSchema>;
export type TokenLoginConfig = z.output<typeof tokenLoginSchema>;
export type SubjectIssuerConfig = z.output<typeof subjectIssuerSchema>;

/** The sign-in methods in effect: `login`, or what localUsers and upstream imply. */
export function loginMethods(o: Pick<OAuthConfig, 'login' | 'localUsers' | 'upstream'>): ReadonlySet<(typeof LOGIN_METHODS)[number]> {
  if (o.login) return new Set(o.login);
  return new Set([...(o.localUsers ? (['password'] as const) : []), ...(o.upstream ? (['upstream'] as const) : [])]);
}
