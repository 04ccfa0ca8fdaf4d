/**
 * `auth.oauth`: Agentport's own OAuth 2.1 authorization server (src/auth/oauth). Its own file so
 * the server's options grow without touching the rest of the schema; docs/configuration.md and
 * docs/auth.md describe every key.
 */
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
  'https://claude.ai/api/mcp/auth_callback',
  'https://claude.com/api/mcp/auth_callback',
] as const;

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

export const oauthSchema = z
  .object({
    enabled: bool.default(true),
    /** access token lifetime */
    accessTokenTtlSeconds: integer(60, 86_400).default(3600),
    /** refresh token lifetime (each rotation starts a new one, within the grant's lifetime) */
    refreshTokenTtlSeconds: integer(300, 365 * 86_400).default(30 * 86_400),
    /** granted when a client asks for no scope */
    defaultScopes: z.array(nonEmptyString).min(1).default([...DEFAULT_OAUTH_SCOPES]),
    /** RFC 7591 dynamic client registration (open, as MCP clients expect) */
    registration: bool.default(true),
    /** extra redirect URIs allowed for registered and metadata-document clients; loopback is always allowed */
    allowedRedirectUris: z.array(redirectPattern).default([...DEFAULT_ALLOWED_REDIRECT_URIS]),
    clientIdMetadataDocuments: cimdSchema.default({}),
  })
  .strict();

export type OAuthConfig = z.output<typeof oauthSchema>;
