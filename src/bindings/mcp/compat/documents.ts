/**
 * The JSON documents of the compatibility routes: server info (`GET /mcp`), the discovery document
 * `/.well-known/mcp-metadata` (server, tools, auth endpoints and ready-to-paste connector settings
 * for ChatGPT and Claude), and the self-check of `/mcp/validate`. Auth endpoints come from
 * src/auth/oauth-paths.ts, the one place that says where the authorization server lives.
 */
import type { Tool } from '@modelcontextprotocol/server';
import { issuerOf, OAUTH_PATHS, oauthUrl, protectedResourceMetadataUrl } from '../../../auth/oauth-paths.js';
import { novaedenMembers } from './novaeden-connectors.js';
import { MCP_SCOPE, type ServerFacts } from './server-facts.js';

/** The MCP revisions `/mcp` serves (modern first). */
export const SERVED_PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'];

export function authDocument(f: ServerFacts): Record<string, unknown> {
  if (f.authMode === 'none') return { type: 'none', required: false };
  const base = { required: true, scopes: [MCP_SCOPE], headers: ['Authorization: Bearer <token or API key>', 'X-API-Key: <API key>'] };
  if (!f.oauthEnabled) return { type: 'bearer', ...base };
  return {
    type: 'oauth2',
    ...base,
    issuer: issuerOf(f.publicUrl),
    authorization_endpoint: oauthUrl(f.publicUrl, OAUTH_PATHS.authorize),
    token_endpoint: oauthUrl(f.publicUrl, OAUTH_PATHS.token),
    registration_endpoint: oauthUrl(f.publicUrl, OAUTH_PATHS.register),
    revocation_endpoint: oauthUrl(f.publicUrl, OAUTH_PATHS.revoke),
    jwks_uri: oauthUrl(f.publicUrl, OAUTH_PATHS.jwks),
    authorization_server_metadata: oauthUrl(f.publicUrl, OAUTH_PATHS.authorizationServerMetadata),
    protected_resource_metadata: protectedResourceMetadataUrl(f.publicUrl, '/mcp'),
    code_challenge_methods_supported: ['S256'],
  };
}

/** `origin`: the request's Origin, which picks the Novaeden `default_connector` (novaeden-connectors.ts). */
export function serverInfoDocument(f: ServerFacts, origin?: string): Record<string, unknown> {
  const novaeden = novaedenMembers(f, origin);
  return {
    ...novaeden.top,
    connectors: novaeden.connectors,
    name: 'agentport',
    title: 'Agentport',
    version: f.version,
    description: 'A2A agents as MCP tools',
    endpoint: `${f.publicUrl}/mcp`,
    transport: 'streamable-http',
    protocolVersions: SERVED_PROTOCOL_VERSIONS,
    auth: authDocument(f),
    links: {
      metadata: `${f.publicUrl}/.well-known/mcp-metadata`,
      tools: `${f.publicUrl}/mcp/tools/list`,
      health: `${f.publicUrl}/mcp/health`,
    },
  };
}

export function metadataDocument(f: ServerFacts, tools: readonly Tool[], origin?: string): Record<string, unknown> {
  const endpoint = `${f.publicUrl}/mcp`;
  const auth = authDocument(f);
  const oauth = auth.type === 'oauth2';
  const novaeden = novaedenMembers(f, origin);
  return {
    ...novaeden.top,
    server: { name: 'agentport', title: 'Agentport', version: f.version, description: 'A2A agents as MCP tools' },
    mcp: { endpoint, transport: 'streamable-http', protocolVersions: SERVED_PROTOCOL_VERSIONS },
    tools: tools.map((t) => ({ name: t.name, ...(t.title ? { title: t.title } : {}), ...(t.description ? { description: t.description } : {}) })),
    auth,
    connectors: {
      ...novaeden.connectors,
      // ChatGPT apps (Developer Mode): Streamable HTTP URL, OAuth or no auth; deep research and
      // company knowledge use only search/fetch. The callback id is shown when the app is created.
      chatgpt: {
        url: endpoint,
        authentication: oauth ? 'oauth' : auth.type === 'none' ? 'none' : 'unsupported (ChatGPT connectors take OAuth or no auth)',
        ...(oauth ? { redirect_uris: ['https://chatgpt.com/connector/oauth/{callback_id}', 'https://chatgpt.com/connector_platform_oauth_redirect'] } : {}),
        searchAndFetch: f.searchAndFetch,
      },
      // Claude (claude.ai / Desktop custom connectors, Claude Code `claude mcp add --transport http`).
      claude: {
        url: endpoint,
        authentication: oauth ? 'oauth' : auth.type,
        ...(oauth ? { redirect_uris: ['https://claude.ai/api/mcp/auth_callback', 'https://claude.com/api/mcp/auth_callback'] } : {}),
        claudeCode: `claude mcp add --transport http agentport ${endpoint}${auth.type === 'bearer' ? ' --header "Authorization: Bearer <API key>"' : ''}`,
      },
    },
  };
}

export interface Check {
  id: string;
  ok: boolean;
  /** `error`: clients will fail; `warning`: some clients will */
  level: 'error' | 'warning';
  message: string;
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** What `/mcp/validate` reports: the surface clients see, checked against what they are known to require. */
export function validate(f: ServerFacts, tools: readonly Tool[]): { valid: boolean; checks: Check[] } {
  const checks: Check[] = [];
  const names = tools.map((t) => t.name);
  const bad = names.filter((n) => !TOOL_NAME.test(n));
  checks.push({ id: 'tool-names', ok: bad.length === 0, level: 'error', message: bad.length ? `tool names outside [A-Za-z0-9_.-]{1,64}: ${bad.join(', ')}` : `${names.length} tool names are valid` });
  const dupes = names.filter((n, i) => names.indexOf(n) !== i);
  checks.push({ id: 'tool-names-unique', ok: dupes.length === 0, level: 'error', message: dupes.length ? `duplicate tool names: ${[...new Set(dupes)].join(', ')}` : 'tool names are unique' });
  const noObject = tools.filter((t) => t.inputSchema?.type !== 'object').map((t) => t.name);
  checks.push({ id: 'input-schemas', ok: noObject.length === 0, level: 'error', message: noObject.length ? `input schemas that are not objects: ${noObject.join(', ')}` : 'every input schema is an object' });
  const noDescription = tools.filter((t) => !t.description?.trim()).map((t) => t.name);
  checks.push({ id: 'tool-descriptions', ok: noDescription.length === 0, level: 'warning', message: noDescription.length ? `tools without a description: ${noDescription.join(', ')}` : 'every tool has a description' });
  checks.push({ id: 'agents', ok: f.agentCount > 0 && tools.length > 0, level: 'warning', message: `${f.agentCount} agents, ${tools.length} tools` });
  const url = new URL(f.publicUrl);
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  const https = url.protocol === 'https:' && (url.port === '' || url.port === '443');
  checks.push({
    id: 'public-url',
    ok: https || local,
    level: 'warning',
    message: https
      ? 'public URL is https on port 443'
      : local
        ? 'public URL is local: fine for Claude Code and Inspector; ChatGPT and claude.ai need https on port 443'
        : 'ChatGPT and claude.ai reach only https on port 443; set server.publicUrl',
  });
  checks.push({
    id: 'auth',
    ok: f.authMode === 'none' || f.oauthEnabled,
    level: 'warning',
    message:
      f.authMode === 'none'
        ? 'authentication is off (auth.mode: none)'
        : f.oauthEnabled
          ? 'OAuth is on: ChatGPT and Claude connectors can sign in'
          : 'only API keys: ChatGPT and claude.ai connectors need OAuth (auth.oauth.enabled)',
  });
  return { valid: checks.every((c) => c.ok || c.level === 'warning'), checks };
}
