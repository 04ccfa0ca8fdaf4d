/**
 * The scopes Agentport understands (issue 5) and what each one grants. `admin` implies every
 * other scope; `mcp:tools` is every usecase's tools, `mcp:tools:<usecase>` one usecase's.
 * Per-skill scopes from the config (`agents[].skills[id].scopes`) are plain names checked as given.
 */
import type { Principal } from './principal.js';

export const SCOPES = {
  /** extended card, get/list/subscribe tasks, non-public agents in the registry */
  discover: 'a2a:discover',
  /** send, stream, cancel, push notification configs */
  publish: 'a2a:publish',
  /** the MCP tools of every usecase */
  mcpTools: 'mcp:tools',
  /** the caller's own usage records (`GET /api/v1/usage`, `agentport usage`); admin reads everyone's */
  usageRead: 'usage:read',
  /** the management API; implies every other scope */
  admin: 'admin',
} as const;

/** `mcp:tools:<usecase>`: the MCP tools (and Table Expert data) of one usecase only */
export const MCP_USECASE_SCOPE_PREFIX = 'mcp:tools:';

/**
 * `mcp:tools:*`: every usecase, the same as `mcp:tools` (the replaced service's wildcard; clients
 * configured against it send it). Usecase names cannot contain `*`, so it names no usecase.
 */
export const MCP_ALL_USECASES_SCOPE = 'mcp:tools:*';

/** `auth.forceUsecaseMode`: `narrow` intersects with the credential's usecase; `override` replaces it. */
export type ForceUsecaseMode = 'narrow' | 'override';

/** What the OAuth server and cards offer, with the text shown on consent screens and in cards. */
export const SCOPE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  [SCOPES.discover]: 'Read agent cards and your tasks',
  [SCOPES.publish]: 'Send messages to agents and manage your tasks',
  [SCOPES.mcpTools]: 'Use the agents as MCP tools',
  [SCOPES.usageRead]: 'Read your own usage statistics',
  [SCOPES.admin]: 'Manage Agentport (keys, users, clients)',
};

export function holdsScope(principal: Principal, scope: string): boolean {
  if (principal.scopes.includes(SCOPES.admin)) return true;
  if (principal.scopes.includes(scope)) return true;
  const everyUsecase = principal.scopes.includes(SCOPES.mcpTools) || principal.scopes.includes(MCP_ALL_USECASES_SCOPE);
  // `mcp:tools` (and `mcp:tools:*`) covers each `mcp:tools:<usecase>`, and each other.
  return everyUsecase && (scope === SCOPES.mcpTools || scope.startsWith(MCP_USECASE_SCOPE_PREFIX));
}

/** Whether the principal may use MCP tools at all (any usecase). */
export function holdsAnyMcpScope(principal: Principal): boolean {
  return holdsScope(principal, SCOPES.mcpTools) || principal.scopes.some((s) => s.startsWith(MCP_USECASE_SCOPE_PREFIX));
}

/**
 * The usecases a principal is bound to; undefined = not bound (sees every usecase). Bound by its
 * credential's `usecase`, by holding only `mcp:tools:<u>` scopes, or by `auth.forceUsecase`:
 * intersected by default (a forced usecase never widens what a credential allows), or, with
 * `auth.forceUsecaseMode: override`, replacing it (the replaced service's MCP_FORCE_USECASE_ID:
 * every call runs as that usecase whatever the credential says).
 */
export function usecasesOf(principal: Principal, forced?: string, mode: ForceUsecaseMode = 'narrow'): readonly string[] | undefined {
  if (forced !== undefined && mode === 'override') return [forced];
  let own: readonly string[] | undefined;
  if (principal.usecase !== undefined) own = [principal.usecase];
  else if (!holdsScope(principal, SCOPES.mcpTools)) {
    const scoped = principal.scopes.filter((s) => s.startsWith(MCP_USECASE_SCOPE_PREFIX) && s !== MCP_ALL_USECASES_SCOPE).map((s) => s.slice(MCP_USECASE_SCOPE_PREFIX.length));
    if (scoped.length) own = scoped;
  }
  if (forced === undefined) return own;
  return own === undefined || own.includes(forced) ? [forced] : [];
}
