/**
 * The members `GET /mcp` and `/.well-known/mcp-metadata` carry in the Novaeden API's shapes
 * (/work/shared/reference: "`authentication.type: \"oauth\"` consistently in `/mcp` and
 * `/.well-known/mcp-metadata`, with `chatgpt_connector` and `claude_code_connector` blocks", and
 * its connector guide: `authentication`, `auth_request`, `oauth_config`, each connector with its
 * own `authentication`, `auth_request`, `oauth_client_params`, and `default_connector` chosen by
 * the request's `Origin`). Clients set up against that API read these; documents.ts keeps
 * Agentport's own members beside them.
 */
import { issuerOf, OAUTH_PATHS, oauthUrl } from '../../../auth/oauth-paths.js';
import { MCP_SCOPE, type ServerFacts } from './server-facts.js';

const CONNECTORS = {
  chatgpt_connector: { name: 'ChatGPT', redirect_uris: ['https://chatgpt.com/connector/oauth/{callback_id}', 'https://chatgpt.com/connector_platform_oauth_redirect'] },
  claude_code_connector: { name: 'Claude Code', redirect_uris: ['https://claude.ai/api/mcp/auth_callback', 'https://claude.com/api/mcp/auth_callback'] },
} as const;
type ConnectorKey = keyof typeof CONNECTORS;

/** `oauth` when connectors can sign in with OAuth; `bearer` (API keys only) or `none` otherwise. */
export function authenticationType(f: ServerFacts): 'oauth' | 'bearer' | 'none' {
  if (f.authMode === 'none') return 'none';
  return f.oauthEnabled ? 'oauth' : 'bearer';
}

function authentication(f: ServerFacts): Record<string, unknown> {
  const type = authenticationType(f);
  if (type !== 'oauth') return { type, required: type !== 'none', ...(type === 'bearer' ? { scheme: 'Bearer', scopes: [MCP_SCOPE] } : {}) };
  return {
    type,
    required: true,
    authorization_url: oauthUrl(f.publicUrl, OAUTH_PATHS.authorize),
    token_url: oauthUrl(f.publicUrl, OAUTH_PATHS.token),
    registration_url: oauthUrl(f.publicUrl, OAUTH_PATHS.register),
    scopes: [MCP_SCOPE],
  };
}

function authRequest(f: ServerFacts): Record<string, unknown> | undefined {
  if (authenticationType(f) !== 'oauth') return undefined;
  return { grant_type: 'authorization_code', response_type: 'code', code_challenge_method: 'S256', scope: MCP_SCOPE };
}

function oauthConfig(f: ServerFacts): Record<string, unknown> | undefined {
  if (authenticationType(f) !== 'oauth') return undefined;
  return {
    issuer: issuerOf(f.publicUrl),
    authorization_endpoint: oauthUrl(f.publicUrl, OAUTH_PATHS.authorize),
    token_endpoint: oauthUrl(f.publicUrl, OAUTH_PATHS.token),
    registration_endpoint: oauthUrl(f.publicUrl, OAUTH_PATHS.register),
    scopes_supported: [MCP_SCOPE],
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
  };
}

function connector(f: ServerFacts, key: ConnectorKey): Record<string, unknown> {
  const c = CONNECTORS[key];
  const request = authRequest(f);
  return {
    name: c.name,
    url: `${f.publicUrl}/mcp`,
    authentication: authentication(f),
    ...(request ? { auth_request: request } : {}),
    ...(authenticationType(f) === 'oauth'
      ? { oauth_client_params: { redirect_uris: [...c.redirect_uris], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], scope: MCP_SCOPE } }
      : {}),
  };
}

/** Claude's origins get its block as the default; everyone else ChatGPT's (the Novaeden API's choice). */
export function defaultConnectorFor(origin: string | undefined): ConnectorKey {
  if (!origin) return 'chatgpt_connector';
  try {
    const host = new URL(origin).hostname;
    return host === 'claude.ai' || host === 'claude.com' || host.endsWith('.claude.ai') ? 'claude_code_connector' : 'chatgpt_connector';
  } catch {
    return 'chatgpt_connector';
  }
}

/** The top-level Novaeden members, and those its `connectors` map adds (merged into ours by the caller). */
export function novaedenMembers(f: ServerFacts, origin: string | undefined): { top: Record<string, unknown>; connectors: Record<string, unknown> } {
  const request = authRequest(f);
  const config = oauthConfig(f);
  const blocks = { chatgpt_connector: connector(f, 'chatgpt_connector'), claude_code_connector: connector(f, 'claude_code_connector') };
  return {
    top: { authentication: authentication(f), ...(request ? { auth_request: request } : {}), ...(config ? { oauth_config: config } : {}), ...blocks },
    connectors: { ...blocks, default_connector: defaultConnectorFor(origin) },
  };
}
