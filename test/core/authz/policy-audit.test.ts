/**
 * The authorization policy records a credential refused for a missing scope (`authz.denied`), and
 * nothing for an allowed call, a call without a credential (the ordinary 401 challenge), or the
 * `allows` checks that filter lists.
 */
import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../../src/core/audit/audit-event.js';
import { AuthorizationPolicy } from '../../../src/core/authz/policy.js';
import { ANONYMOUS, type Principal } from '../../../src/core/authz/principal.js';

function policy() {
  const events: AuditEvent[] = [];
  const p = new AuthorizationPolicy({ mode: 'required', anonymousExtendedCard: false, agents: { echo: { visibility: 'public', skillScopes: {} } } }, { record: (e) => events.push(e) });
  return { p, events };
}

const reader: Principal = { subject: 'bob', authenticated: true, scopes: ['a2a:discover'], keyId: '0123456789abcdef' };

describe('AuthorizationPolicy audit', () => {
  it('records a refused credential with the operation, the agent and the scopes it lacked', () => {
    const { p, events } = policy();
    expect(() => p.authorize(reader, 'send-message', { agentId: 'echo' })).toThrow('The credential lacks the scope this needs: a2a:publish');
    expect(events).toEqual([
      {
        action: 'authz.denied',
        outcome: 'denied',
        actor: 'bob',
        actorClient: 'apikey:0123456789abcdef',
        target: 'agent:echo',
        details: { operation: 'send-message', requiredScopes: ['a2a:publish'] },
      },
    ]);
  });

  it('records nothing for an allowed call, an anonymous one or an allows() check', () => {
    const { p, events } = policy();
    p.authorize(reader, 'read-tasks', { agentId: 'echo' });
    expect(() => p.authorize(ANONYMOUS, 'send-message', { agentId: 'echo' })).toThrow('Authentication required (scope: a2a:publish)');
    expect(p.allows(reader, 'administer')).toBe(false);
    expect(events).toEqual([]);
  });
});
