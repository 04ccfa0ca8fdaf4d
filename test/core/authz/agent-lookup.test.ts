/**
 * The one agent lookup (src/core/authz/agent-lookup.ts): an unknown agent and one the caller may
 * not see give the same answer, per situation (a path, a tenant); a public agent's card is seen
 * by everyone.
 */
import { describe, expect, it } from 'vitest';
import { admitToAgentPath, agentSeen } from '../../../src/core/authz/agent-lookup.js';
import { AuthorizationPolicy } from '../../../src/core/authz/policy.js';
import { ANONYMOUS, type Principal } from '../../../src/core/authz/principal.js';
import type { AgentRegistry } from '../../../src/core/agents/agent-registry.js';

const ids = ['open', 'hidden', 'billing'];
const registry = { get: (id: string) => (ids.includes(id) ? { id } : undefined), list: () => ids.map((id) => ({ id })) } as unknown as AgentRegistry;
const policy = new AuthorizationPolicy({
  mode: 'required',
  anonymousExtendedCard: false,
  agents: {
    open: { visibility: 'public', skillScopes: {} },
    hidden: { visibility: 'extended', skillScopes: {} },
    billing: { visibility: 'public', usecase: 'billing', skillScopes: {} },
  },
});
const discoverer: Principal = { subject: 'd', authenticated: true, scopes: ['a2a:discover'] };
const otherUsecase: Principal = { subject: 'o', authenticated: true, scopes: ['a2a:discover'], usecase: 'support' };
const unknownMessage = (id: string) => `No agent '${id}' here; the agents here are: open`;

describe('the agent lookup', () => {
  it('answers a path naming an unknown agent and a hidden one alike, without authenticating for a public one', async () => {
    let asked = 0;
    const anonymous = async () => (asked++, ANONYMOUS);
    expect(await admitToAgentPath(registry, policy, 'nope', 'a2a', anonymous)).toEqual({ unknown: true, message: unknownMessage('nope') });
    expect(await admitToAgentPath(registry, policy, 'hidden', 'a2a', anonymous)).toEqual({ unknown: true, message: unknownMessage('hidden') });
    expect(asked).toBe(1);
    expect(await admitToAgentPath(registry, policy, 'open', 'a2a', anonymous)).toEqual({ unknown: false });
    expect(asked).toBe(1);
    expect(await admitToAgentPath(registry, policy, 'hidden', 'a2a', async () => discoverer)).toEqual({ unknown: false, principal: discoverer });
  });

  it("lets everyone read a public agent's card, a caller of another usecase too, but not use the agent", async () => {
    expect((await admitToAgentPath(registry, policy, 'billing', 'a2a', async () => otherUsecase, { publicDocument: true })).unknown).toBe(false);
    expect((await admitToAgentPath(registry, policy, 'billing', 'a2a', async () => otherUsecase)).unknown).toBe(true);
  });

  it('answers a tenant once the caller is known', () => {
    expect(agentSeen(registry, policy, 'nope', discoverer)).toBe(false);
    expect(agentSeen(registry, policy, 'hidden', ANONYMOUS)).toBe(false);
    expect(agentSeen(registry, policy, 'hidden', discoverer)).toBe(true);
    expect(agentSeen(registry, undefined, 'hidden', ANONYMOUS)).toBe(true);
  });
});
