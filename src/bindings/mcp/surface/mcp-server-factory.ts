/**
 * The MCP surface of a set of agents, as a factory of `McpServer`s: the SDK's `createMcpHandler`
 * calls it once per HTTP request (both eras; the endpoint is stateless). Everything heavy —
 * tool specs, compiled input schemas, card JSON — is built once per scope; a call only registers
 * the prepared tools and resources on a fresh instance.
 */
import { fromJsonSchema, McpServer, type AuthInfo, type RequestStateCodec, type ServerEventBus, type McpRequestContext, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { RegisteredAgent } from '../../../core/agents/agent-registry.js';
import type { A2AHandler } from '../../../core/a2a-handler.js';
import { ANONYMOUS, type Principal } from '../../../core/authz/principal.js';
import type { AuthorizationPolicy } from '../../../core/authz/policy.js';
import { agentToolSpecs, callAgentTool, type AgentToolArgs, type AgentToolSpec, type SkillAnnotationsLookup, type ToolCallEra } from '../tools/agent-tools.js';
import { InFlightCalls } from '../tools/in-flight-calls.js';
import { registerGenericTools } from '../tools/generic-tools.js';
import type { TaskStateCodec } from '../tools/input-required.js';
import { registerTaskTemplate } from '../tasks/task-resources.js';
import { TASKS_EXTENSION } from '../tasks/mcp-tasks.js';
import { declaresUrlElicitation } from '../tools/url-elicitation.js';
import type { McpFixtureModule } from './fixture-module.js';
import { registerSkillPrompts, skillPrompts } from './skill-prompts.js';
import { contributedInstructions, contributedToolSpecs } from '../tools/contributed-tools.js';

export interface McpScope {
  /** `/mcp` (every agent) or `/a2a/{id}/mcp` (one) */
  name: string;
  agents: RegisteredAgent[];
}

export interface McpFactoryDeps {
  handler: A2AHandler;
  inFlight: InFlightCalls;
  version: string;
  log: { debug(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  stateCodec: TaskStateCodec;
  /** `agents[].skills[id].annotations` from the config */
  skillAnnotations?: SkillAnnotationsLookup;
  /** the authorization policy: each caller is shown (and may call) only the tools it may use */
  policy?: AuthorizationPolicy;
  /** list_agents, send_message, get_task, cancel_task (generic-tools.ts) */
  genericTools?: boolean;
  /** `mcp.fixtureModule`: test-only tools, resources and prompts beside the agents' (fixture-module.ts) */
  fixtureModule?: McpFixtureModule;
  /** where list changes are published to subscriptions/listen streams (a fixture module may publish) */
  listBus?: ServerEventBus;
}

export const PRINCIPAL_EXTRA = 'agentport/principal';

/** The principal the endpoint authenticated, carried through the SDK inside AuthInfo. */
export function authInfoFor(principal: Principal): AuthInfo {
  return { token: '', clientId: principal.clientId ?? principal.subject, scopes: [...principal.scopes], extra: { [PRINCIPAL_EXTRA]: principal } };
}

export function principalOf(authInfo: AuthInfo | undefined): Principal {
  const p = authInfo?.extra?.[PRINCIPAL_EXTRA] as Principal | undefined;
  return p ?? ANONYMOUS;
}

/** Legacy instances know the client's capabilities only in a session (legacy-sessions.ts). */
function eraOf(era: 'modern' | 'legacy', server: McpServer): ToolCallEra {
  if (era === 'modern') return 'modern';
  const capabilities = server.server.getClientCapabilities();
  if (!capabilities?.elicitation) return 'legacy';
  return declaresUrlElicitation(capabilities) ? 'legacy-elicitation-url' : 'legacy-elicitation';
}

/** How the server names itself (initialize, discover, and every modern result's `_meta`). */
export const serverInfo = (version: string) => ({ name: 'agentport', title: 'Agentport', version });

export const cardResourceUri = (agentId: string) => `agentport://agents/${agentId}/card`;

const LIST_TTL_MS = 60_000;

/**
 * What an instance declares beside `tools` and the tasks extension, unless a fixture module says
 * otherwise. prompts: the skills' examples (skill-prompts.ts); logging: logging/setLevel is
 * accepted (nothing is logged to clients yet).
 */
const CAPABILITIES = { resources: { listChanged: true }, prompts: { listChanged: true }, logging: {} };

/** The factory the SDK calls per request, and the agent tools it registers, for the plain path (plain-tool-call.ts). */
export type ScopeServerFactory = ((ctx: McpRequestContext) => McpServer) & {
  /** the agent tool `name` as this caller's tools/list shows it; undefined when it is not there */
  agentTool(name: string, principal: Principal): AgentToolSpec | undefined;
  /**
   * The agent tool `name` for the plain path (plain-tool-answer.ts). Of an agent that does not
   * tell skills apart, the tool is returned whoever calls, and the core alone decides whether the
   * caller may use it: its question is then exactly `mayUseTool`'s (every skill of the agent).
   * An agent with `skillOf` reads the skill from the message, which may name another skill than
   * the tool's, so there the caller's tools/list decides first (`agentTool`), as a hidden tool
   * must answer like an unknown one.
   */
  plainTool(name: string, principal: Principal): AgentToolSpec | undefined;
};

/**
 * Whether the caller may see a tool reaching these skills of the agent: tools/list shows only
 * those, and the SDK path registers only those, so a hidden tool's call gets an unknown tool's
 * answer even with bad arguments (the SDK validates them before any handler runs). It is the same
 * question the core asks when the call reaches it (core/stages/authorizing-handler.ts), which is
 * the decision that counts; the plain path (plain-tool-answer.ts) asks only the core.
 */
function mayUseTool(policy: AuthorizationPolicy | undefined, principal: Principal, agentId: string, skillIds: readonly string[]): boolean {
  return !policy || (policy.canSeeAgent(principal, agentId, 'mcp') && policy.allows(principal, 'send-message', { agentId, skillIds, surface: 'mcp' }));
}

export function createMcpServerFactory(d: McpFactoryDeps, scope: McpScope): ScopeServerFactory {
  const compiled = new Map<object, StandardSchemaWithJSON>();
  const compile = (schema: Record<string, unknown>) => {
    let c = compiled.get(schema);
    if (!c) compiled.set(schema, (c = fromJsonSchema(schema as Parameters<typeof fromJsonSchema>[0]) as StandardSchemaWithJSON));
    return c;
  };
  const tools = agentToolSpecs(scope.agents, d.skillAnnotations).map((spec) => ({ spec, schema: compile(spec.inputSchema) }));
  const agentIds = new Set(scope.agents.map((a) => a.id));
  // The agents' own tools (contributed-tools.ts), called through the core like the skill tools.
  const ownTools = contributedToolSpecs(scope.agents, new Set(tools.map((t) => t.spec.name))).map((spec) => ({
    spec,
    schema: compile(spec.inputSchema),
    ...(spec.outputSchema ? { output: compile(spec.outputSchema) } : {}),
  }));
  const takenNames = new Set([...tools.map((t) => t.spec.name), ...ownTools.map((t) => t.spec.name)]);
  const cards = scope.agents.map((a) => ({ agent: a, uri: cardResourceUri(a.id), json: JSON.stringify(a.publicCard, null, 2) }));
  const names = scope.agents.map((a) => a.publicCard.name).join(', ');
  const instructions =
    `Agentport: A2A agents as MCP tools (${names}). Each tool sends a message to an agent skill and returns the task's result; ` +
    'when a result says the agent needs more input, call the same tool again with the given taskId.' +
    contributedInstructions(scope.agents);

  const toolsByName = new Map(tools.map((t) => [t.spec.name, t.spec]));
  const prompts = skillPrompts(
    scope.agents,
    tools.map((t) => t.spec),
  );
  const agentTool = (name: string, principal: Principal): AgentToolSpec | undefined => {
    const spec = toolsByName.get(name);
    return spec && mayUseTool(d.policy, principal, spec.agentId, toolSkills(scope.agents, spec.agentId, spec.skillId)) ? spec : undefined;
  };

  const factory = (ctx: McpRequestContext): McpServer => {
    const principal = principalOf(ctx.authInfo);
    const server = new McpServer(serverInfo(d.version), {
      // listChanged: agents may come and go (AgentRegistry.onChange, announced by mcp-endpoint.ts).
      // The tasks extension is answered by the endpoint (mcp-tasks.ts), outside this instance.
      capabilities: { tools: { listChanged: true }, ...(d.fixtureModule?.capabilities ?? CAPABILITIES), extensions: { [TASKS_EXTENSION]: {} } },
      instructions,
      cacheHints: {
        'tools/list': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
        'resources/list': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
        'prompts/list': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
        'server/discover': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
      },
      requestState: { verify: d.stateCodec.verify },
    });
    // A refused requestState reaches the client as the SDK's frozen -32602; the reason is logged here.
    server.server.onerror = (err) => d.log.debug({ err: err.message }, 'mcp: server error (e.g. a refused requestState)');

    // tools/list shows only what this caller may use, and a hidden tool's call is an unknown tool's.
    const policy = d.policy;
    const mayUse = (agentId: string, skillIds: readonly string[]) => mayUseTool(policy, principal, agentId, skillIds);
    for (const { spec, schema } of tools) {
      if (!mayUse(spec.agentId, toolSkills(scope.agents, spec.agentId, spec.skillId))) continue;
      server.registerTool(spec.name, { title: spec.title, description: spec.description, inputSchema: schema, annotations: spec.annotations }, (args, toolCtx) =>
        callAgentTool(d, spec, args as AgentToolArgs, principal, toolCtx, eraOf(ctx.era, server)),
      );
    }
    registerSkillPrompts(
      server,
      prompts.filter((p) => mayUse(p.spec.agentId, toolSkills(scope.agents, p.spec.agentId, p.spec.skillId))),
    );
    // The usecases a call may read are the core's to attach (core/authz), not this face's.
    for (const { spec, schema, output } of ownTools) {
      if (!mayUse(spec.agentId, toolSkills(scope.agents, spec.agentId, ...spec.skills))) continue;
      const meta = { title: spec.title, description: spec.description, inputSchema: schema, ...(output ? { outputSchema: output } : {}), annotations: spec.annotations };
      server.registerTool(spec.name, meta, (args, toolCtx) => callAgentTool(d, spec, { message: '', data: args as Record<string, unknown> }, principal, toolCtx, eraOf(ctx.era, server)));
    }

    for (const c of cards) {
      if (policy && !policy.canSeeAgent(principal, c.agent.id, 'mcp')) continue;
      server.registerResource(
        `${c.agent.id}-card`,
        c.uri,
        { title: `${c.agent.publicCard.name} agent card`, description: `The A2A agent card of "${c.agent.id}"`, mimeType: 'application/json', cacheHint: { ttlMs: LIST_TTL_MS, cacheScope: 'private' } },
        (uri) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: c.json }] }),
      );
    }

    if (d.genericTools) registerGenericTools(server, d, scope.agents, principal, () => eraOf(ctx.era, server), takenNames);

    registerTaskTemplate(server, d.handler, agentIds, principal);
    d.fixtureModule?.register(server, {
      principal,
      requestState: d.stateCodec as RequestStateCodec<unknown>,
      listBus: d.listBus,
      agentTool: (name) => agentTool(name, principal),
      callAgentTool: (spec, args, toolCtx) => callAgentTool(d, spec, args, principal, toolCtx, eraOf(ctx.era, server)),
    });

    if (ctx.era === 'legacy') {
      // Stateless legacy: the cancel arrives in its own POST, to this fresh instance (in-flight-calls.ts).
      server.server.setNotificationHandler('notifications/cancelled', (n) => {
        const { requestId, reason } = n.params;
        if (requestId === undefined) return;
        const hit = d.inFlight.cancel(principal.subject, requestId, reason);
        d.log.debug({ requestId, hit }, 'mcp: notifications/cancelled');
      });
    }
    return server;
  };
  const skillBlind = new Set(scope.agents.filter((a) => !a.definition.skillOf).map((a) => a.id));
  const plainTool = (name: string, principal: Principal): AgentToolSpec | undefined => {
    const spec = toolsByName.get(name);
    return spec && skillBlind.has(spec.agentId) ? spec : agentTool(name, principal);
  };
  return Object.assign(factory, { agentTool, plainTool });
}

export { InFlightCalls };

/**
 * The skills a tool call may reach, as the core's authorization sees them: the tool's own skill
 * when the agent tells skills apart (`skillOf`), else all of the agent's skills.
 */
function toolSkills(agents: readonly RegisteredAgent[], agentId: string, ...skillIds: string[]): readonly string[] {
  const agent = agents.find((a) => a.id === agentId);
  if (!agent || agent.definition.skillOf) return skillIds;
  return agent.definition.card.skills.map((s) => s.id);
}
