/**
 * The scopes the authorization server offers (the authorization engine's, src/core/authz/scopes.ts,
 * which decides what each permits) and who may receive which: a user gets at most the scopes
 * stored with the user; `admin` may grant anything; `mcp:tools` covers every `mcp:tools:<usecase>`.
 */
import { MCP_USECASE_SCOPE_PREFIX, SCOPES } from '../../core/authz/scopes.js';

export { MCP_USECASE_SCOPE_PREFIX, SCOPE_DESCRIPTIONS, SCOPES } from '../../core/authz/scopes.js';

export const OFFERED_SCOPES: readonly string[] = [SCOPES.discover, SCOPES.publish, SCOPES.mcpTools, SCOPES.usageRead, SCOPES.admin];

const USECASE = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export function isUsecaseScope(scope: string): boolean {
  return scope.startsWith(MCP_USECASE_SCOPE_PREFIX) && USECASE.test(scope.slice(MCP_USECASE_SCOPE_PREFIX.length));
}

/** The requested scopes a holder of `allowed` may receive. */
export function grantableScopes(requested: readonly string[], allowed: readonly string[]): string[] {
  const admin = allowed.includes(SCOPES.admin);
  return requested.filter((s) => admin || allowed.includes(s) || (isUsecaseScope(s) && allowed.includes(SCOPES.mcpTools)));
}
