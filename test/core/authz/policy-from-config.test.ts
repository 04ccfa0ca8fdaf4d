/**
 * The authorization policy built from a parsed configuration (AuthorizationPolicy.fromConfig): the
 * settings the decisions in policy-decisions.test.ts depend on are taken from the config keys
 * (auth.mode, auth.forceUsecase(Mode), auth.anonymousExtendedCard, agents[].visibility, usecase,
 * skills[].scopes). Apart from policy-decisions.test.ts because the config schema is slow to import.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import { ANY_MCP_SCOPE, AuthorizationPolicy } from '../../../src/core/authz/policy.js';
import { ANONYMOUS, type Principal } from '../../../src/core/authz/principal.js';

const who = (scopes: string[], more: Partial<Principal> = {}): Principal => ({ subject: 'bob', authenticated: true, scopes, ...more });

describe('AuthorizationPolicy.fromConfig', () => {
  const config = (auth: Record<string, unknown>) =>
    parseConfig(
      {
        auth,
        agents: [
          { id: 'echo', builtin: 'echo', skills: { echo: { scopes: ['x:echo'] }, plain: { scopes: [] }, bare: { visibility: 'extended' } } },
          { id: 'ledger', builtin: 'echo', visibility: 'extended', usecase: 'finance' },
        ],
      },
      { env: {}, cwd: '/tmp' },
    );

  it('takes the mode, the forced usecase and its mode, the anonymous card, and each agent’s visibility, usecase and skill scopes', () => {
    const p = AuthorizationPolicy.fromConfig(config({ forceUsecase: 'finance', forceUsecaseMode: 'override', anonymousExtendedCard: true }));
    expect(p.enforcing).toBe(true);
    expect(p.allows(ANONYMOUS, 'read-extended-card')).toBe(true);
    expect(p.skillScopesOf('echo')).toEqual({ echo: ['x:echo'] });
    expect(p.requiredScopes('send-message', { agentId: 'echo', skillIds: ['echo'] })).toEqual(['a2a:publish', 'x:echo']);
    expect(p.isPublicAgent('echo')).toBe(true);
    expect(p.isPublicAgent('ledger')).toBe(false);
    expect(p.usecases(who(['mcp:tools:hr']))).toEqual(['finance']);
    expect(p.requiredScopes('read-tasks', { agentId: 'ledger', surface: 'mcp' })).toEqual([ANY_MCP_SCOPE]);
  });

  it('defaults: required, narrow, no anonymous card; mode none enforces nothing', () => {
    const p = AuthorizationPolicy.fromConfig(config({}));
    expect(p.allows(ANONYMOUS, 'read-extended-card')).toBe(false);
    expect(p.usecases(who(['mcp:tools:hr']))).toEqual(['hr']);
    expect(p.canSeeAgent(who(['a2a:discover'], { usecase: 'hr' }), 'ledger')).toBe(false);
    expect(p.requiredScopes('read-tasks', { agentId: 'ledger', surface: 'mcp' })).toEqual(['mcp:tools:finance']);
    expect(AuthorizationPolicy.fromConfig(config({ mode: 'none', forceUsecase: 'finance' })).usecases(ANONYMOUS)).toEqual(['finance']);
  });
});
