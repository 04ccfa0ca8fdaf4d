/**
 * RFC 9728 protected resource metadata, one document per resource: the server (root), `/mcp`,
 * and per agent its A2A base path `/a2a/{id}` and its MCP endpoint `/a2a/{id}/mcp`. Served where
 * RFC 9728 §3.1 puts them (the well-known prefix inserted before the resource path), and also with
 * the prefix appended to the path, which some MCP clients of the 2025-03-26 era try.
 */
import { PROTECTED_RESOURCE_PREFIX, resourceIdentifier } from '../oauth-paths.js';
import { SCOPES } from './scopes.js';
import { resourcePathOf } from './resources.js';

/** Asked for every request (the OAuth face's match): one string, not one a call. */
const PROTECTED_RESOURCE_DIR = `${PROTECTED_RESOURCE_PREFIX}/`;

export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported: string[];
  bearer_methods_supported: ['header'];
  resource_name: string;
}

/**
 * The resource path a metadata request asks about, or undefined when the path is not such a request.
 * `publicPrefix` (`/agentport` when the public URL is `https://host/agentport`): RFC 9728 §3.1 puts
 * the document of `https://host/agentport/mcp` at `https://host/.well-known/oauth-protected-resource/agentport/mcp`,
 * at the origin's root, which a proxy forwards unchanged when told to; the prefix is dropped here.
 */
export function metadataRequestPath(path: string, publicPrefix = ''): string | undefined {
  if (path === PROTECTED_RESOURCE_PREFIX || path === PROTECTED_RESOURCE_DIR) return '/';
  if (path.startsWith(PROTECTED_RESOURCE_DIR)) {
    const resourcePath = path.slice(PROTECTED_RESOURCE_PREFIX.length);
    if (publicPrefix === '') return resourcePath;
    if (resourcePath === publicPrefix || resourcePath === `${publicPrefix}/`) return '/';
    return resourcePath.startsWith(`${publicPrefix}/`) ? resourcePath.slice(publicPrefix.length) : resourcePath;
  }
  if (path.endsWith(PROTECTED_RESOURCE_PREFIX)) return path.slice(0, -PROTECTED_RESOURCE_PREFIX.length) || '/';
  return undefined;
}

export function protectedResourceMetadata(o: {
  publicUrl: string;
  /** our issuer when the authorization server is on, and the configured external issuers */
  authorizationServers: string[];
  resourcePath: string;
  agentName: (id: string) => string | undefined;
}): ProtectedResourceMetadata | undefined {
  const path = resourcePathOf(o.resourcePath);
  if (path === undefined) return undefined;
  const agent = /^\/a2a\/([^/]+)/.exec(path)?.[1];
  let name = 'Agentport';
  let scopes: string[] = [SCOPES.discover, SCOPES.publish, SCOPES.mcpTools, SCOPES.usageRead, SCOPES.admin];
  if (agent !== undefined) {
    let id: string;
    try {
      id = decodeURIComponent(agent);
    } catch {
      return undefined;
    }
    const agentName = o.agentName(id);
    if (agentName === undefined) return undefined;
    name = agentName;
  }
  if (path === '/api/v1') {
    name = 'Agentport management API';
    // usage:read answers GET /api/v1/usage (one's own usage); admin everything.
    scopes = [SCOPES.admin, SCOPES.usageRead];
  } else if (path.endsWith('/mcp')) {
    name = `${name} (MCP)`;
    scopes = [SCOPES.mcpTools];
  } else if (agent !== undefined) {
    name = `${name} (A2A)`;
    scopes = [SCOPES.discover, SCOPES.publish];
  }
  return {
    resource: resourceIdentifier(o.publicUrl, path),
    authorization_servers: o.authorizationServers,
    scopes_supported: scopes,
    bearer_methods_supported: ['header'],
    resource_name: name,
  };
}
