/**
 * The MCP surface of a set of agents, as a factory of `McpServer`s: the SDK's `createMcpHandler`
 * calls it once per HTTP request (both eras; the endpoint is stateless). Everything heavy —
 * tool specs, compiled input schemas, card JSON — is built once per scope; a call only registers
 * the prepared tools and resources on a fresh instance.
 */
import { fromJsonSchema, McpServer, type AuthInfo, type RequestStateCodec, type ServerEventBus, type McpRequestContext, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { RegisteredAgent } from '../../core/agents/agent-registry.js';
import type { A2AHandler } from '../../core/a2a-handler.js';
import { ANONYMOUS, type Principal } from '../../core/authz/principal.js';
import type { AuthorizationPolicy } from '../../core/authz/policy.js';
import { agentToolSpecs, callAgentTool, toolName, type AgentToolArgs, type AgentToolSpec, type SkillAnnotationsLookup, type ToolCallEra } from './agent-tools.js';
import { InFlightCalls } from './in-flight-calls.js';
import { registerGenericTools } from './generic-tools.js';
import type { TaskStateCodec } from './input-required.js';
import { registerTaskTemplate } from './task-resources.js';
import { TASKS_EXTENSION } from './mcp-tasks.js';
import { CONFORMANCE_CAPABILITIES, registerConformanceFixtures } from './conformance-fixtures.js';
import { FIXTURE_AGENT_ID } from './conformance-task-agent.js';
import { registerFixtureTaskTools } from './conformance-task-tools.js';
import { registerSkillPrompts, skillPrompts } from './skill-prompts.js';
import { fetchTool, queryTool, searchTool, TABLE_EXPERT_TOOLS, type TableExpertBinding } from './table-expert-tools.js';

export interface McpScope {
  /** `/mcp` (every agent) or `/a2a/{id}/mcp` (one) */
  name: string;
  agents: RegisteredAgent[];
  /** the Table Expert whose search/fetch/query tools this scope offers */
  tableExpert?: TableExpertBinding;
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
  /** also serve the conformance suite's fixture tools, resources and prompts (conformance-fixtures.ts) */
  conformanceFixtures?: boolean;
  /** where list changes are published to subscriptions/listen streams (the fixtures' triggers use it) */
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
  return server.server.getClientCapabilities()?.elicitation ? 'legacy-elicitation' : 'legacy';
}

/** How the server names itself (initialize, discover, and every modern result's `_meta`). */
export const serverInfo = (version: string) => ({ name: 'agentport', title: 'Agentport', version });

export const cardResourceUri = (agentId: string) => `agentport://agents/${agentId}/card`;

const LIST_TTL_MS = 60_000;

/** The factory the SDK calls per request, and the agent tools it registers, for the plain path (plain-tool-call.ts). */
export type ScopeServerFactory = ((ctx: McpRequestContext) => McpServer) & {
  /** the agent tool `name` as this caller's tools/list shows it; undefined when it is not there */
  agentTool(name: string, principal: Principal): AgentToolSpec | undefined;
};

/** Whether the caller may see and call a tool reaching these skills of the agent (tools/list shows only those). */
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
  const takenNames = new Set([...tools.map((t) => t.spec.name), ...(scope.tableExpert ? Object.keys(TABLE_EXPERT_TOOLS) : [])]);
  const cards = scope.agents.map((a) => ({ agent: a, uri: cardResourceUri(a.id), json: JSON.stringify(a.publicCard, null, 2) }));
  const te = scope.tableExpert;
  const teSchemas = te
    ? {
        search: compile(TABLE_EXPERT_TOOLS.search.inputSchema as unknown as Record<string, unknown>),
        fetch: compile(TABLE_EXPERT_TOOLS.fetch.inputSchema as unknown as Record<string, unknown>),
        query: compile(TABLE_EXPERT_TOOLS.query_table_expert.inputSchema as unknown as Record<string, unknown>),
      }
    : undefined;
  const names = scope.agents.map((a) => a.publicCard.name).join(', ');
  const instructions =
    `Agentport: A2A agents as MCP tools (${names}). Each tool sends a message to an agent skill and returns the task's result; ` +
    'when a result says the agent needs more input, call the same tool again with the given taskId.' +
    (te ? ' For data questions use query_table_expert; search and fetch find and open tables, columns, rows and saved results.' : '');

  const toolsByName = new Map(tools.map((t) => [t.spec.name, t.spec]));
  const prompts = skillPrompts(scope.agents, tools.map((t) => t.spec));
  const agentTool = (name: string, principal: Principal): AgentToolSpec | undefined => {
    const spec = toolsByName.get(name);
    return spec && mayUseTool(d.policy, principal, spec.agentId, toolSkills(scope.agents, spec.agentId, spec.skillId)) ? spec : undefined;
  };

  const factory = (ctx: McpRequestContext): McpServer => {
    const principal = principalOf(ctx.authInfo);
    const server = new McpServer(
      serverInfo(d.version),
      {
        // listChanged: agents may come and go (AgentRegistry.onChange, announced by mcp-endpoint.ts).
        // The tasks extension is answered by the endpoint (mcp-tasks.ts), outside this instance.
        capabilities: {
          // prompts: the skills' examples (skill-prompts.ts); logging: logging/setLevel is accepted (nothing is logged to clients yet)
          ...(d.conformanceFixtures
            ? { tools: { listChanged: true }, ...CONFORMANCE_CAPABILITIES }
            : { tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true }, logging: {} }),
          extensions: { [TASKS_EXTENSION]: {} },
        },
        instructions,
        cacheHints: {
          'tools/list': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
          'resources/list': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
          'prompts/list': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
          'server/discover': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
        },
        requestState: { verify: d.stateCodec.verify },
      },
    );
    // A refused requestState reaches the client as the SDK's frozen -32602; the reason is logged here.
    server.server.onerror = (err) => d.log.debug({ err: err.message }, 'mcp: server error (e.g. a refused requestState)');

    // tools/list shows only what this caller may use, and a hidden tool's call is an unknown tool's.
    const policy = d.policy;
    const mayUse = (agentId: string, skillIds: readonly string[]) => mayUseTool(policy, principal, agentId, skillIds);
    const usecases = policy?.usecases(principal);
    const dataScope = usecases ? { usecases } : undefined;
    for (const { spec, schema } of tools) {
      if (!mayUse(spec.agentId, toolSkills(scope.agents, spec.agentId, spec.skillId))) continue;
      server.registerTool(spec.name, { title: spec.title, description: spec.description, inputSchema: schema, annotations: spec.annotations }, (args, toolCtx) =>
        callAgentTool(d, spec, args as AgentToolArgs, principal, toolCtx, eraOf(ctx.era, server)),
      );
    }
    registerSkillPrompts(server, prompts.filter((p) => mayUse(p.spec.agentId, toolSkills(scope.agents, p.spec.agentId, p.spec.skillId))));
    if (te && teSchemas) {
      const teTool = (skills: readonly string[]) => mayUse(te.agentId, toolSkills(scope.agents, te.agentId, ...skills));
      const t = TABLE_EXPERT_TOOLS;
      if (teTool(['search'])) server.registerTool('search', { title: t.search.title, description: t.search.description, inputSchema: teSchemas.search, annotations: t.search.annotations }, (args, c) =>
        searchTool(te, args as { query: string; limit?: number }, c.mcpReq.signal, dataScope),
      );
      if (teTool(['fetch'])) server.registerTool('fetch', { title: t.fetch.title, description: t.fetch.description, inputSchema: teSchemas.fetch, annotations: t.fetch.annotations }, (args, c) =>
        fetchTool(te, args as { id: string }, c.mcpReq.signal, dataScope),
      );
      const q = t.query_table_expert;
      if (teTool(['ask', 'query'])) server.registerTool('query_table_expert', { title: q.title, description: q.description, inputSchema: teSchemas.query, annotations: q.annotations }, (args, c) =>
        queryTool(te, args as { question: string; maxRows?: number }, c.mcpReq.signal, dataScope),
      );
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
    if (d.conformanceFixtures) {
      registerConformanceFixtures(server, d.stateCodec as RequestStateCodec<unknown>, d.listBus);
      registerFixtureTaskTools(server, (fixture) => agentTool(toolName(FIXTURE_AGENT_ID, fixture), principal), (spec, args, toolCtx) =>
        callAgentTool(d, spec, args, principal, toolCtx, eraOf(ctx.era, server)),
      );
    }

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
  return Object.assign(factory, { agentTool });
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
