/**
 * The scopes the authorization server offers and who may receive which: a user gets at most the
 * scopes stored with the user; `admin` may grant anything; `mcp:tools` covers every
 * `mcp:tools:<usecase>`. The names are the authorization engine's (src/core/authz), which decides
 * what each one permits; they are the contract between the two and are spelled out here so the
 * OAuth server does not depend on the engine's internals.
 */
export const SCOPES = {
  discover: 'a2a:discover',
  publish: 'a2a:publish',
  mcpTools: 'mcp:tools',
  admin: 'admin',
} as const;

export const MCP_USECASE_SCOPE_PREFIX = 'mcp:tools:';

export const OFFERED_SCOPES: readonly string[] = [SCOPES.discover, SCOPES.publish, SCOPES.mcpTools, SCOPES.admin];

/** What the consent page says each scope lets the client do. */
export const SCOPE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  [SCOPES.discover]: 'Read agent cards and your tasks',
  [SCOPES.publish]: 'Send messages to agents and manage your tasks',
  [SCOPES.mcpTools]: 'Use the agents as MCP tools',
  [SCOPES.admin]: 'Manage Agentport (keys, users, clients)',
};

const USECASE = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export function isUsecaseScope(scope: string): boolean {
  return scope.startsWith(MCP_USECASE_SCOPE_PREFIX) && USECASE.test(scope.slice(MCP_USECASE_SCOPE_PREFIX.length));
}

/** The requested scopes a holder of `allowed` may receive. */
export function grantableScopes(requested: readonly string[], allowed: readonly string[]): string[] {
  const admin = allowed.includes(SCOPES.admin);
  return requested.filter((s) => admin || allowed.includes(s) || (isUsecaseScope(s) && allowed.includes(SCOPES.mcpTools)));
}
