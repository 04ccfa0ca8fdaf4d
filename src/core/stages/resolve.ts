/**
 * The resolve stage: the one place along a call that asks the registry and the visibility rule.
 * It puts the agent and the skills the call is for on the call's context, where authorization,
 * quotas, usage and the task service read them; none of them looks the agent up again (issue 26).
 *
 * The skills of a message: the one the agent names (AgentDefinition.skillOf), else all of its
 * skills for authorization (it may use any) and, for quotas and usage, the one an MCP tool call
 * hinted in the request's metadata (SKILL_METADATA_KEY), if any.
 */
import type { CallContext } from '../a2a-handler.js';
import type { AgentRegistry } from '../agents/agent-registry.js';
import type { Call, Stage } from '../pipeline.js';
import type { UsageDraft } from '../usage/usage-draft.js';
import { SKILL_METADATA_KEY } from '../../protocol/a2a/skill-metadata.js';
import type { AgentSkill } from '../../protocol/a2a/types.js';
import type { AuthorizationPolicy } from '../authz/policy.js';
import { unknownTenant } from '../authz/unknown-agent.js';
import { agentSeen } from '../authz/agent-lookup.js';

/** What the core knows of a call for its usage record: operation, agent, skill, caller, task. */
function noteCall(u: UsageDraft, ctx: CallContext, call: Call): void {
  // A face that speaks another protocol (MCP: 'tools/call') has named the operation already.
  u.operation ??= call.operation.name;
  u.agent = ctx.agentId;
  u.noteCaller(ctx.principal);
  if (ctx.skills?.length === 1) u.skill ??= ctx.skills[0];
  if (call.op === 'sendMessage' || call.op === 'sendStreamingMessage') {
    const named = call.req.metadata?.[SKILL_METADATA_KEY];
    if (typeof named === 'string') u.skill ??= named;
  } else if (call.op !== 'getExtendedAgentCard' && call.op !== 'listTasks') {
    const id = 'taskId' in call.req ? call.req.taskId : 'id' in call.req ? call.req.id : undefined;
    if (typeof id === 'string') u.taskId ??= id;
  }
}

/** The ids of a card's skills, listed once per skills list rather than once per message. */
const skillIds = new WeakMap<readonly AgentSkill[], readonly string[]>();
function skillIdsOf(skills: readonly AgentSkill[]): readonly string[] {
  let ids = skillIds.get(skills);
  if (!ids) {
    ids = Object.freeze(skills.map((s) => s.id));
    skillIds.set(skills, ids);
  }
  return ids;
}

export function resolveStage(registry: AgentRegistry, policy: AuthorizationPolicy): Stage {
  return {
    name: 'resolve',
    call(ctx, call, next) {
      const agent = registry.get(ctx.agentId);
      if (agent && (call.op === 'sendMessage' || call.op === 'sendStreamingMessage')) {
        const named = agent.definition.skillOf?.(call.req.message);
        const hinted = call.req.metadata?.[SKILL_METADATA_KEY];
        ctx.resolved(agent, named !== undefined ? [named] : skillIdsOf(agent.definition.card.skills), named ?? (typeof hinted === 'string' && hinted !== '' ? hinted : undefined));
      } else ctx.resolved(agent, undefined, undefined);
      if (ctx.usage) noteCall(ctx.usage, ctx, call);
      // An agent the caller may not see answers exactly like an unknown tenant. One not registered
      // (gone since the face looked) goes on: the task service answers for it.
      if (!policy.canSeeAgent(ctx.principal, ctx.agentId, ctx.surface ?? 'a2a')) throw unknownTenant(ctx.agentId);
      return next(ctx);
    },
    // The tenant lookup (agent-lookup.ts): the agent exists and, with `caller`, that caller may see it.
    hasAgent(agentId, caller, next) {
      if (caller === undefined) return next(agentId);
      return agentSeen(registry, policy, agentId, caller.principal, caller.surface ?? 'a2a');
    },
  };
}
