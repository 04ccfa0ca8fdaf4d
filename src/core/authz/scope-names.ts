/**
 * Which scope names mean something here (issue 25, SC1). A scope nobody checks is a silent
 * mistake: a key made with `a2a:invoke` (a name from elsewhere) authenticates and can call
 * nothing. Keys, users and clients are therefore refused an unknown scope, with the known ones
 * named and the closest suggested.
 *
 * Known: the built-in scopes (scopes.ts), `mcp:tools:<usecase>` and `mcp:tools:*`, and whatever the
 * caller adds: the per-skill scopes of the configuration (keys), `openid` and `offline_access`
 * (clients).
 */
import { MCP_ALL_USECASES_SCOPE, MCP_USECASE_SCOPE_PREFIX, SCOPES } from './scopes.js';

export const BUILT_IN_SCOPES: readonly string[] = [SCOPES.discover, SCOPES.publish, SCOPES.mcpTools, SCOPES.usageRead, SCOPES.admin];
const USECASE = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export function isKnownScope(scope: string, extra: readonly string[] = []): boolean {
  if (BUILT_IN_SCOPES.includes(scope) || extra.includes(scope) || scope === MCP_ALL_USECASES_SCOPE) return true;
  return scope.startsWith(MCP_USECASE_SCOPE_PREFIX) && USECASE.test(scope.slice(MCP_USECASE_SCOPE_PREFIX.length));
}

/** One sentence naming the first unknown scope, a suggestion and the known ones; undefined when all are known. */
export function unknownScopeMessage(scopes: readonly string[], extra: readonly string[] = []): string | undefined {
  const unknown = scopes.find((s) => !isKnownScope(s, extra));
  if (unknown === undefined) return undefined;
  const known = [...BUILT_IN_SCOPES, `${MCP_USECASE_SCOPE_PREFIX}<usecase>`, ...extra.filter((s) => !BUILT_IN_SCOPES.includes(s))];
  const closest = [...BUILT_IN_SCOPES, ...extra].map((s) => ({ s, d: distance(unknown, s) })).sort((a, b) => a.d - b.d)[0];
  const hint = closest && closest.d <= Math.max(2, Math.floor(unknown.length / 3)) ? ` (did you mean ${closest.s}?)` : '';
  return `unknown scope ${JSON.stringify(unknown)}${hint}; the known scopes are ${known.join(' ')}`;
}

/** Levenshtein distance, for the suggestion only (scope names are short). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}
