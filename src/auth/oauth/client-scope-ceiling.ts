/**
 * The scopes a client may ever receive, kept as the client's own `scope` metadata so oidc-provider
 * enforces it on every authorization and token request (a scope outside it is `invalid_scope`,
 * before any login or consent page). The user's scopes cap the grant too; this caps the client.
 *
 * - Clients an administrator creates (`agentport clients create`, `/api/v1/clients`, the
 *   `/mcp/config/` page) carry a marker written straight into the store, and their `scope`, if
 *   any, stands as written (a machine client may hold `admin`).
 * - Every other client (dynamic registration, Client ID Metadata Documents, and records from
 *   before the marker) is held to `SELF_REGISTERED_CEILING`: never `admin`, whatever a consenting
 *   administrator clicks. A client that anyone on the internet can create must not be able to
 *   collect the keys to the client registry and the user list.
 */
import { OFFERED_SCOPES, SCOPES } from './scopes.js';

/** Metadata property set only on administrator-created clients (client-registry.ts, migration 0006). */
export const ADMIN_CLIENT_MARKER = 'agentport_registered_by';
export const ADMINISTRATOR = 'administrator';

// usage:read is below the ceiling: it reads only the signed-in user's own usage (docs/usage.md).
export const SELF_REGISTERED_CEILING: readonly string[] = ['openid', 'offline_access', SCOPES.discover, SCOPES.publish, SCOPES.mcpTools, SCOPES.usageRead];

const KNOWN: readonly string[] = ['openid', 'offline_access', ...OFFERED_SCOPES];

/**
 * The `scope` a self-registered client is held to: what it registered, less the known scopes
 * above the ceiling; the whole ceiling when it registered none. Unknown values are kept for
 * oidc-provider to refuse as before (`invalid_client_metadata`). Never empty: oidc-provider reads
 * an empty `scope` as "no limit".
 */
export function selfRegisteredScope(registered: unknown): string {
  if (typeof registered !== 'string' || !registered.trim()) return SELF_REGISTERED_CEILING.join(' ');
  const kept = [...new Set(registered.split(' '))].filter((s) => s && (SELF_REGISTERED_CEILING.includes(s) || !KNOWN.includes(s)));
  return (kept.length ? kept : ['openid']).join(' ');
}
