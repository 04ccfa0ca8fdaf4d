/**
 * The RFC 8707 resources Agentport serves, and so the audiences its tokens may carry: the server
 * itself (its base audience), `/mcp`, the management API `/api/v1`, and per agent `/a2a/{id}` and `/a2a/{id}/mcp`. A token is
 * bound to exactly one; src/auth/jwt-bearer.ts checks it at each resource.
 */
import { issuerOf, publicPathPrefix, resourceIdentifier } from '../oauth-paths.js';

export interface ResourceCatalog {
  publicUrl: () => string;
  hasAgent: (id: string) => boolean;
  /** `auth.audience`: extra accepted base audiences */
  audiences?: readonly string[];
}

/** The resource path of a request path, or undefined when it is not one of ours. */
export function resourcePathOf(path: string): string | undefined {
  const p = path.replace(/\/+$/, '') || '/';
  if (p === '/' || p === '/mcp' || p === '/api/v1') return p;
  const m = /^\/a2a\/([^/]+)(\/mcp)?$/.exec(p);
  return m ? p : undefined;
}

/**
 * Whether `resource` names one of our resources: exactly its identifier (one trailing slash
 * dropped), or the public URL as configured. The identifier comparison alone refuses another
 * origin, a path outside the prefix or the same place written another way; only the public URL
 * as written needs the query, fragment and credentials refused by hand.
 */
export function isOwnResource(c: ResourceCatalog, resource: string): boolean {
  if (c.audiences?.includes(resource)) return true;
  if (!URL.canParse(resource)) return false;
  const u = new URL(resource);
  if (u.search || u.hash || u.username || u.password) return false;
  const publicUrl = c.publicUrl();
  // Under a path prefix (`https://host/agentport`), resources are named below it.
  const path = resourcePathOf(u.pathname.slice(publicPathPrefix(publicUrl).length));
  if (path === undefined) return false;
  if (resourceIdentifier(publicUrl, path) !== resource.replace(/\/$/, '') && resource !== publicUrl) return false;
  // `/a2a/{agent}` or `/a2a/{agent}/mcp`: resourcePathOf gave a non-empty segment after `/a2a/`
  const [, first, agent] = path.split('/');
  return first !== 'a2a' || agentExists(c, agent!);
}

/** Whether the agent named by a path segment exists; a segment that is not valid percent-encoding names none. */
function agentExists(c: ResourceCatalog, segment: string): boolean {
  let id: string;
  try {
    id = decodeURIComponent(segment);
  } catch {
    return false;
  }
  return c.hasAgent(id);
}

/** The audience given to tokens requested without `resource`: the server's base audience. */
export function baseAudience(c: ResourceCatalog): string {
  return c.audiences?.[0] ?? issuerOf(c.publicUrl());
}
