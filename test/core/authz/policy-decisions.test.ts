/**
 * The authorization decision itself, in process (src/core/authz/policy.ts, scopes.ts): which
 * scopes each action needs on each surface, who holds them, who sees which agent. Expected values
 * are written out from docs/auth.md and the doc comments of the scopes (admin implies every scope;
 * `mcp:tools` and `mcp:tools:*` cover every `mcp:tools:<usecase>`; a bound caller sees only its
 * usecase), not computed with the module.
 */
import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../../src/core/audit/audit-event.js';
import { AccessDenied } from '../../../src/core/authz/access-denied.js';
import { ANY_MCP_SCOPE, AuthorizationPolicy, type AuthorizationSettings } from '../../../src/core/authz/policy.js';
import { ANONYMOUS, type Principal } from '../../../src/core/authz/principal.js';
import { holdsAnyMcpScope, holdsScope, SCOPE_DESCRIPTIONS, SCOPES, usecasesOf } from '../../../src/core/authz/scopes.js';

const AGENTS: AuthorizationSettings['agents'] = {
  echo: { visibility: 'public', skillScopes: { secret: ['x:secret'] } },
  billing: { visibility: 'public', usecase: 'finance', skillScopes: { refund: ['payments:refund'], report: ['reports:read'], again: ['a2a:publish'] } },
  hidden: { visibility: 'extended', skillScopes: {} },
  hiddenFin: { visibility: 'extended', usecase: 'finance', skillScopes: {} },
  hr: { visibility: 'public', usecase: 'hr', skillScopes: {} },
};

function policy(extra: Partial<AuthorizationSettings> = {}, audit?: AuditEvent[]) {
  return new AuthorizationPolicy({ mode: 'required', anonymousExtendedCard: false, agents: AGENTS, ...extra }, audit ? { record: (e) => audit.push(e) } : undefined);
}

const who = (scopes: string[], more: Partial<Principal> = {}): Principal => ({ subject: 'bob', authenticated: true, scopes, ...more });

function refusal(f: () => void): AccessDenied {
  try {
    f();
  } catch (e) {
    if (e instanceof AccessDenied) return e;
    throw e;
  }
  throw new Error('expected an AccessDenied');
}

describe('holdsScope', () => {
  it.each([
    [['admin'], 'a2a:publish', true],
    [['admin'], 'mcp:tools:hr', true],
    [['a2a:publish'], 'a2a:publish', true],
    [['a2a:publish'], 'a2a:discover', false],
    [['mcp:tools'], 'mcp:tools:hr', true],
    [['mcp:tools'], 'mcp:tools', true],
    [['mcp:tools'], 'a2a:publish', false],
    [['mcp:tools:*'], 'mcp:tools:hr', true],
    [['mcp:tools:*'], 'mcp:tools', true],
    [['mcp:tools:*'], 'usage:read', false],
    [['mcp:tools:hr'], 'mcp:tools', false],
    [['mcp:tools:hr'], 'mcp:tools:finance', false],
    [['mcp:tools:hr'], 'mcp:tools:hr', true],
    [['mcp:tools'], 'mcp:toolsX', false],
    [[], 'a2a:discover', false],
  ] as const)('%j holds %s: %s', (scopes, scope, held) => {
    expect(holdsScope(who([...scopes]), scope)).toBe(held);
  });

  it('holdsAnyMcpScope: mcp:tools, mcp:tools:*, one usecase or admin; not a2a scopes', () => {
    expect(holdsAnyMcpScope(who(['mcp:tools']))).toBe(true);
    expect(holdsAnyMcpScope(who(['mcp:tools:*']))).toBe(true);
    expect(holdsAnyMcpScope(who(['a2a:publish', 'mcp:tools:hr']))).toBe(true);
    expect(holdsAnyMcpScope(who(['admin']))).toBe(true);
    expect(holdsAnyMcpScope(who(['a2a:publish', 'a2a:discover', 'usage:read']))).toBe(false);
  });

  it('every built-in scope has a description to show on consent screens and cards', () => {
    expect(Object.keys(SCOPE_DESCRIPTIONS).sort()).toEqual(['a2a:discover', 'a2a:publish', 'admin', 'mcp:tools', 'usage:read']);
    for (const text of Object.values(SCOPE_DESCRIPTIONS)) expect(text.length).toBeGreaterThan(10);
    expect(SCOPES).toEqual({ discover: 'a2a:discover', publish: 'a2a:publish', mcpTools: 'mcp:tools', usageRead: 'usage:read', admin: 'admin' });
  });
});

describe('usecasesOf', () => {
  it('a credential usecase binds; only mcp:tools:<u> scopes bind to those; mcp:tools, mcp:tools:* or admin do not', () => {
    expect(usecasesOf(who(['a2a:publish'], { usecase: 'hr' }))).toEqual(['hr']);
    expect(usecasesOf(who(['mcp:tools'], { usecase: 'hr' }))).toEqual(['hr']);
    expect(usecasesOf(who(['mcp:tools:hr', 'mcp:tools:finance', 'a2a:publish']))).toEqual(['hr', 'finance']);
    expect(usecasesOf(who(['mcp:tools:hr', 'mcp:tools']))).toBeUndefined();
    expect(usecasesOf(who(['mcp:tools:*']))).toBeUndefined();
    expect(usecasesOf(who(['mcp:tools:hr', 'admin']))).toBeUndefined();
    expect(usecasesOf(who(['a2a:publish']))).toBeUndefined();
  });

  it('a forced usecase narrows (never widens) by default and replaces with override', () => {
    expect(usecasesOf(who(['a2a:publish']), 'hr')).toEqual(['hr']);
    expect(usecasesOf(who(['mcp:tools:hr']), 'hr')).toEqual(['hr']);
    expect(usecasesOf(who(['mcp:tools:hr']), 'finance')).toEqual([]);
    expect(usecasesOf(who(['a2a:publish'], { usecase: 'hr' }), 'finance', 'narrow')).toEqual([]);
    expect(usecasesOf(who(['a2a:publish'], { usecase: 'hr' }), 'finance', 'override')).toEqual(['finance']);
    expect(usecasesOf(who(['mcp:tools:hr']), 'finance', 'override')).toEqual(['finance']);
    expect(usecasesOf(who(['mcp:tools:hr']), undefined, 'override')).toEqual(['hr']);
    expect(usecasesOf(who(['a2a:publish']), undefined, 'override')).toBeUndefined();
  });
});

describe('requiredScopes', () => {
  const p = policy();
  it('on A2A: each action its scope, a message also its skills’ scopes (once each)', () => {
    expect(p.requiredScopes('administer')).toEqual(['admin']);
    expect(p.requiredScopes('read-usage')).toEqual(['usage:read']);
    expect(p.requiredScopes('use-mcp')).toEqual([ANY_MCP_SCOPE]);
    expect(ANY_MCP_SCOPE).toBe('mcp:tools:*');
    expect(p.requiredScopes('read-extended-card', { agentId: 'echo' })).toEqual(['a2a:discover']);
    expect(p.requiredScopes('read-tasks', { agentId: 'billing', skillIds: ['refund'] })).toEqual(['a2a:discover']);
    expect(p.requiredScopes('send-message', { agentId: 'echo' })).toEqual(['a2a:publish']);
    expect(p.requiredScopes('send-message', { agentId: 'billing', skillIds: ['refund', 'report', 'again', 'unknown'] })).toEqual(['a2a:publish', 'payments:refund', 'reports:read']);
    expect(p.requiredScopes('send-message', { skillIds: ['refund'] })).toEqual(['a2a:publish']);
    expect(p.requiredScopes('send-message', { agentId: 'nobody', skillIds: ['refund'] })).toEqual(['a2a:publish']);
    expect(p.requiredScopes('cancel-task', { agentId: 'billing', skillIds: ['refund'] })).toEqual(['a2a:publish']);
    expect(p.requiredScopes('manage-push-configs', { agentId: 'echo' })).toEqual(['a2a:publish']);
  });

  it('on MCP: any MCP scope for an agent of no usecase, mcp:tools:<u> for a usecase’s agent, plus skill scopes', () => {
    expect(p.requiredScopes('read-tasks', { agentId: 'echo', surface: 'mcp' })).toEqual([ANY_MCP_SCOPE]);
    expect(p.requiredScopes('read-tasks', { surface: 'mcp' })).toEqual([ANY_MCP_SCOPE]);
    expect(p.requiredScopes('send-message', { agentId: 'echo', skillIds: ['secret'], surface: 'mcp' })).toEqual([ANY_MCP_SCOPE, 'x:secret']);
    expect(p.requiredScopes('read-tasks', { agentId: 'billing', skillIds: ['refund'], surface: 'mcp' })).toEqual(['mcp:tools:finance']);
    expect(p.requiredScopes('send-message', { agentId: 'billing', skillIds: ['refund'], surface: 'mcp' })).toEqual(['mcp:tools:finance', 'payments:refund']);
  });

  it('with forceUsecaseMode override, the forced usecase’s agents need any MCP scope; others keep their own; narrow changes nothing', () => {
    const over = policy({ forceUsecase: 'finance', forceUsecaseMode: 'override' });
    expect(over.requiredScopes('read-tasks', { agentId: 'billing', surface: 'mcp' })).toEqual([ANY_MCP_SCOPE]);
    expect(over.requiredScopes('read-tasks', { agentId: 'hr', surface: 'mcp' })).toEqual(['mcp:tools:hr']);
    expect(over.requiredScopes('read-tasks', { agentId: 'echo', surface: 'mcp' })).toEqual([ANY_MCP_SCOPE]);
    const narrow = policy({ forceUsecase: 'finance' });
    expect(narrow.requiredScopes('read-tasks', { agentId: 'billing', surface: 'mcp' })).toEqual(['mcp:tools:finance']);
    expect(over.requiredScopes('read-tasks', { surface: 'mcp' })).toEqual([ANY_MCP_SCOPE]);
    expect(over.requiredScopes('read-tasks', { agentId: 'not-configured', surface: 'mcp' })).toEqual([ANY_MCP_SCOPE]);
    const overOther = policy({ forceUsecase: 'hr', forceUsecaseMode: 'override' });
    expect(overOther.requiredScopes('read-tasks', { agentId: 'billing', surface: 'mcp' })).toEqual(['mcp:tools:finance']);
  });
});

describe('authorize and allows', () => {
  it('mode none: every caller does everything and sees every agent', () => {
    const p = policy({ mode: 'none' });
    expect(p.enforcing).toBe(false);
    expect(p.allows(ANONYMOUS, 'administer')).toBe(true);
    expect(() => p.authorize(ANONYMOUS, 'send-message', { agentId: 'billing', skillIds: ['refund'] })).not.toThrow();
    expect(p.canSeeAgent(ANONYMOUS, 'hiddenFin')).toBe(true);
    expect(p.seenByEveryone('hiddenFin', 'mcp')).toBe(true);
  });

  it('refuses without a credential as Unauthenticated and with one lacking the scope as PermissionDenied, naming what would be enough', () => {
    const p = policy();
    expect(p.enforcing).toBe(true);
    const anon = refusal(() => p.authorize(ANONYMOUS, 'read-tasks', { agentId: 'echo' }));
    expect(anon.kind).toBe('Unauthenticated');
    expect(anon.requiredScopes).toEqual(['a2a:discover']);
    const lacking = refusal(() => p.authorize(who(['a2a:publish']), 'send-message', { agentId: 'billing', skillIds: ['refund'] }));
    expect(lacking.kind).toBe('PermissionDenied');
    expect(lacking.requiredScopes).toEqual(['a2a:publish', 'payments:refund']);
    expect(p.allows(who(['a2a:publish', 'payments:refund']), 'send-message', { agentId: 'billing', skillIds: ['refund'] })).toBe(true);
    expect(p.allows(who(['admin']), 'send-message', { agentId: 'billing', skillIds: ['refund', 'report'] })).toBe(true);
    expect(p.allows(who(['a2a:discover']), 'cancel-task')).toBe(false);
    expect(p.allows(who(['a2a:publish']), 'administer')).toBe(false);
    expect(p.allows(who(['usage:read']), 'read-usage')).toBe(true);
  });

  it('any MCP scope opens the MCP endpoint; a refusal names mcp:tools (never the placeholder)', () => {
    const p = policy();
    expect(p.allows(who(['mcp:tools:hr']), 'use-mcp')).toBe(true);
    expect(p.allows(who(['mcp:tools:hr']), 'read-tasks', { agentId: 'echo', surface: 'mcp' })).toBe(true);
    expect(p.allows(who(['mcp:tools:hr']), 'read-tasks', { agentId: 'billing', surface: 'mcp' })).toBe(false);
    const refused = refusal(() => p.authorize(who(['a2a:publish']), 'use-mcp'));
    expect(refused.requiredScopes).toEqual(['mcp:tools']);
    const withSkill = refusal(() => p.authorize(who(['mcp:tools']), 'send-message', { agentId: 'echo', skillIds: ['secret'], surface: 'mcp' }));
    expect(withSkill.requiredScopes).toEqual(['mcp:tools', 'x:secret']);
    const own = refusal(() => p.authorize(who(['mcp:tools:hr']), 'send-message', { agentId: 'billing', skillIds: ['refund'], surface: 'mcp' }));
    expect(own.requiredScopes).toEqual(['mcp:tools:finance', 'payments:refund']);
  });

  it('the extended card without a credential only when anonymousExtendedCard is on, and only the card', () => {
    expect(policy().allows(ANONYMOUS, 'read-extended-card')).toBe(false);
    const open = policy({ anonymousExtendedCard: true });
    expect(open.allows(ANONYMOUS, 'read-extended-card')).toBe(true);
    expect(open.allows(ANONYMOUS, 'read-tasks')).toBe(false);
  });

  it('the authz.denied record names an OAuth client as actor client, the surface, and no target without an agent', () => {
    const events: AuditEvent[] = [];
    const p = policy({}, events);
    expect(() => p.authorize(who(['a2a:discover'], { clientId: 'app-1' }), 'use-mcp', { surface: 'mcp' })).toThrow(AccessDenied);
    expect(() => p.authorize(who(['a2a:discover']), 'administer')).toThrow(AccessDenied);
    // strict: an actorClient or target present but undefined is a different record
    expect(events).toStrictEqual([
      { action: 'authz.denied', outcome: 'denied', actor: 'bob', actorClient: 'app-1', details: { operation: 'use-mcp', requiredScopes: ['mcp:tools'], surface: 'mcp' } },
      { action: 'authz.denied', outcome: 'denied', actor: 'bob', details: { operation: 'administer', requiredScopes: ['admin'] } },
    ]);
  });
});

describe('which agents a caller sees', () => {
  const p = policy();
  it('a hidden agent needs a2a:discover (on MCP: any MCP scope); an unconfigured one is left to the registry', () => {
    expect(p.canSeeAgent(ANONYMOUS, 'echo')).toBe(true);
    expect(p.canSeeAgent(ANONYMOUS, 'not-configured')).toBe(true);
    expect(p.canSeeAgent(ANONYMOUS, 'hidden')).toBe(false);
    expect(p.canSeeAgent(who(['a2a:publish']), 'hidden')).toBe(false);
    expect(p.canSeeAgent(who(['a2a:discover']), 'hidden')).toBe(true);
    expect(p.canSeeAgent(who(['a2a:discover']), 'hidden', 'mcp')).toBe(false);
    expect(p.canSeeAgent(who(['mcp:tools:hr']), 'hidden', 'mcp')).toBe(true);
    expect(p.canSeeAgent(who(['mcp:tools:hr']), 'hidden')).toBe(false);
  });

  it('a caller bound to a usecase never sees another usecase’s agent, hidden or not', () => {
    expect(p.canSeeAgent(who(['mcp:tools:hr']), 'billing', 'mcp')).toBe(false);
    expect(p.canSeeAgent(who(['mcp:tools:hr']), 'hr', 'mcp')).toBe(true);
    expect(p.canSeeAgent(who(['mcp:tools:hr']), 'echo', 'mcp')).toBe(true);
    expect(p.canSeeAgent(who(['a2a:discover'], { usecase: 'finance' }), 'hiddenFin')).toBe(true);
    expect(p.canSeeAgent(who(['a2a:discover'], { usecase: 'hr' }), 'hiddenFin')).toBe(false);
    expect(p.canSeeAgent(who(['a2a:discover']), 'billing')).toBe(true);
  });

  it('public agents of no usecase are seen by everyone; a usecase’s public agent is public but not seen by everyone', () => {
    expect(p.isPublicAgent('echo')).toBe(true);
    expect(p.isPublicAgent('billing')).toBe(true);
    expect(p.isPublicAgent('hidden')).toBe(false);
    expect(p.isPublicAgent('hidden', 'mcp')).toBe(false);
    expect(p.seenByEveryone('echo', 'a2a')).toBe(true);
    expect(p.seenByEveryone('billing', 'a2a')).toBe(false);
    expect(p.seenByEveryone('hidden', 'mcp')).toBe(false);
    expect(p.seenByEveryone('not-configured', 'a2a')).toBe(true);
  });

  it('admitToAgent: no authentication for an agent everyone sees; otherwise unknown unless the caller authenticates and may see it', async () => {
    let asked = 0;
    const as = (principal: Principal | Error) => async () => {
      asked++;
      if (principal instanceof Error) throw principal;
      return principal;
    };
    expect(await p.admitToAgent('echo', 'a2a', as(new Error('never asked')))).toEqual({ unknown: false });
    expect(asked).toBe(0);
    expect(await p.admitToAgent('hidden', 'a2a', as(new Error('bad token')))).toEqual({ unknown: true });
    expect(await p.admitToAgent('billing', 'a2a', as(new Error('bad token')))).toEqual({ unknown: false });
    const reader = who(['a2a:discover']);
    expect(await p.admitToAgent('hidden', 'a2a', as(reader))).toEqual({ unknown: false, principal: reader });
    expect(await p.admitToAgent('hidden', 'a2a', as(who(['a2a:publish'])))).toEqual({ unknown: true });
    expect(asked).toBe(4);
  });

  it('usecases(): with authorization off only a forced usecase binds; on, the credential’s narrowed or overridden', () => {
    expect(policy({ mode: 'none' }).usecases(ANONYMOUS)).toBeUndefined();
    expect(policy({ mode: 'none', forceUsecase: 'hr' }).usecases(ANONYMOUS)).toEqual(['hr']);
    // with authorization off, a credential's own usecase binds nothing
    expect(policy({ mode: 'none' }).usecases(who(['mcp:tools:hr'], { usecase: 'hr' }))).toBeUndefined();
    expect(policy({ mode: 'none', forceUsecase: 'finance' }).usecases(who(['mcp:tools:hr']))).toEqual(['finance']);
    expect(policy().usecases(who(['mcp:tools:hr']))).toEqual(['hr']);
    expect(policy({ forceUsecase: 'finance' }).usecases(who(['mcp:tools:hr']))).toEqual([]);
    expect(policy({ forceUsecase: 'finance', forceUsecaseMode: 'override' }).usecases(who(['mcp:tools:hr']))).toEqual(['finance']);
  });

  it('skill scopes: per agent for cards, and every configured one (once) for API keys', () => {
    expect(p.skillScopesOf('billing')).toEqual({ refund: ['payments:refund'], report: ['reports:read'], again: ['a2a:publish'] });
    expect(p.skillScopesOf('nobody')).toEqual({});
    expect(p.configuredSkillScopes().sort()).toEqual(['a2a:publish', 'payments:refund', 'reports:read', 'x:secret']);
  });
});
