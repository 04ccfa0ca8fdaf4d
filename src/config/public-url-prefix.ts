/**
 * A `server.publicUrl` with a path (`https://example.org/agentport`): Agentport is served below
 * that prefix by a reverse proxy, which may strip it or pass it on. The server accepts both, so it
 * must be able to tell the prefix from its own routes: a prefix whose first segment is one of the
 * server's root paths (`/mcp`, `/a2a`, …) would make `/mcp/…` mean two things, and is refused.
 * docs/decisions/0019-console.md (Revision: path prefixes).
 */
import { httpBaseUrl } from './primitives.js';

/**
 * The first segments of every path the HTTP listener serves at its root (cards, A2A, MCP, the
 * management API, the console, OAuth, health, metrics, the API docs). test/config pins this list
 * against the OpenAPI document's paths.
 */
export const ROOT_SEGMENTS: readonly string[] = ['.well-known', 'a2a', 'api', 'connect', 'console', 'docs', 'healthz', 'mcp', 'metrics', 'oauth', 'openapi.json', 'readyz'];

/** The first segment of a URL path's prefix that collides with a root path of the server, if any. */
export function collidingPrefixSegment(pathname: string): string | undefined {
  const first = pathname.split('/')[1] ?? '';
  return first !== '' && ROOT_SEGMENTS.includes(decodeSegment(first).toLowerCase()) ? first : undefined;
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** `server.publicUrl`: an http(s) base URL whose path, if any, is a prefix the server can tell from its own routes. */
export const publicBaseUrl = httpBaseUrl.superRefine((value, ctx) => {
  const segment = collidingPrefixSegment(new URL(value).pathname);
  if (segment !== undefined) {
    ctx.addIssue({ code: 'custom', message: `its path must not begin with /${segment}, one of the server's own paths: choose another prefix, e.g. https://example.org/agentport` });
  }
});
