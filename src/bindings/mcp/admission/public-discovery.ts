/**
 * `mcp.publicDiscovery` (off by default): the replaced service answered `initialize` and
 * `tools/list` on its MCP endpoint without credentials, and ignored an invalid token on them, so
 * that connector set-up screens (ChatGPT's) could validate the server before any sign-in. With the
 * option on, those calls (and the rest of the handshake: `notifications/initialized`, `ping`, and
 * the 2026 revision's `server/discover`) are answered for a caller without a usable credential
 * from the public surface: the tools of the agents every caller sees, as `/mcp/tools/list` lists
 * them. Everything else still needs a credential. Off by default because a 401 on `initialize` is
 * what tells MCP clients to start OAuth (MCP authorization spec, RFC 9728 discovery): with the
 * option on, clients that only sign in when challenged connect anonymously and meet the 401 on
 * their first `tools/call` instead (docs/mcp.md).
 */
import type { Principal } from '../../../core/authz/principal.js';
import type { AuthorizationPolicy } from '../../../core/authz/policy.js';

/** The handler scope key of the public surface (never an agent id: those cannot contain spaces). */
export const PUBLIC_SCOPE = ' public-discovery';

/** The principal of an anonymous discovery call; compared by identity. */
export const PUBLIC_DISCOVERY_PRINCIPAL: Principal = Object.freeze({ subject: 'anonymous', authenticated: false, scopes: [] });

const DISCOVERY_METHODS = new Set(['initialize', 'notifications/initialized', 'ping', 'server/discover', 'tools/list']);

/** A single JSON-RPC message (no batch) calling one of the discovery methods. */
export function isPublicDiscoveryCall(body: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return false;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return false;
  const m = (parsed as { method?: unknown }).method;
  return typeof m === 'string' && DISCOVERY_METHODS.has(m);
}

/** The caller's principal when its credential is valid and may use MCP; otherwise the public one (a refused credential is ignored). */
export async function discoveryPrincipal(authenticate: () => Promise<Principal>, policy: AuthorizationPolicy | undefined): Promise<Principal> {
  try {
    const principal = await authenticate();
    if (!policy || policy.allows(principal, 'use-mcp')) return principal;
  } catch {
    // a refused credential: ignored for discovery calls
  }
  return PUBLIC_DISCOVERY_PRINCIPAL;
}
