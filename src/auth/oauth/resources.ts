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

/** Whether `resource` names one of our resources (exact, after dropping one trailing slash). */
export function isOwnResource(c: ResourceCatalog, resource: string): boolean {
  if (c.audiences?.includes(resource)) return true;
  if (!URL.canParse(resource)) return false;
  const u = new URL(resource);
  if (u.search || u.hash || u.username || u.password) return false;
  const publicUrl = c.publicUrl();
  if (u.origin !== new URL(publicUrl).origin) return false;
  // Under a path prefix (`https://host/agentport`), resources are named below it.
  const prefix = publicPathPrefix(publicUrl);
  if (prefix !== '' && u.pathname !== prefix && !u.pathname.startsWith(`${prefix}/`)) return false;
  const path = resourcePathOf(u.pathname.slice(prefix.length) || '/');
  if (path === undefined) return false;
  const agent = /^\/a2a\/([^/]+)/.exec(path)?.[1];
  if (agent !== undefined) {
    let id: string;
    try {
      id = decodeURIComponent(agent);
    } catch {
      return false;
    }
    if (!c.hasAgent(id)) return false;
  }
  return resourceIdentifier(publicUrl, path) === resource.replace(/\/$/, '') || resource === publicUrl;
}

/** The audience given to tokens requested without `resource`: the server's base audience. */
export function baseAudience(c: ResourceCatalog): string {
  return c.audiences?.[0] ?? issuerOf(c.publicUrl());
}
