/**
 * `mcp.fixtureModule`: a test-only module that adds tools, resources, prompts and request
 * handlers to `/mcp`, beside the agents' tools. It is the way to exercise protocol machinery that
 * no agent reaches: notifications with the client's progress token, MRTR rounds with sealed
 * requestStates, resource subscriptions, a capability set of its own, answers before any task
 * exists. Agents contribute their MCP tools through `AgentDefinition.mcp` instead, and those run
 * through the core as tasks; what a fixture module registers does not, so it has no place in a
 * real deployment.
 *
 * The MCP conformance suite's fixtures are one (test/support/mcp-conformance/fixture-module.ts).
 * The module is imported once at start (as `agents[].module` are); its default export is a
 * `McpFixtureModule`.
 */
import type { CallToolResult, InputRequiredResult, McpServer, RequestStateCodec, ServerCapabilities, ServerContext, ServerEventBus } from '@modelcontextprotocol/server';
import type { Principal } from '../../../core/authz/principal.js';
import type { AgentToolArgs, AgentToolSpec } from '../tools/agent-tools.js';
import type { Answer } from '../answer.js';
import type { HeaderLookup } from '../tools/plain-tool-call.js';

export interface McpFixtureModule {
  /**
   * What `/mcp` declares beside `tools` and the tasks extension, instead of the default
   * (resources and prompts with `listChanged`, logging).
   */
  capabilities?: Omit<ServerCapabilities, 'tools' | 'extensions'>;
  /**
   * Registers the module's tools, resources, prompts and handlers on one `/mcp` instance (the
   * SDK builds one per request, after the agents' tools). Not on `/a2a/{id}/mcp`, nor on the
   * surface anonymous discovery calls see.
   */
  register(server: McpServer, ctx: McpFixtureContext): void;
  /**
   * A `POST` without a session, parsed, before the fast path of agent tools and the SDK: the
   * module's own answer, or undefined to let the request go on.
   */
  fastPath?(request: unknown, headers: HeaderLookup, ctx: McpFixtureRequest): Promise<Answer | undefined> | Answer | undefined;
}

/** What `register` may use on one instance; bound to the caller of that request. */
export interface McpFixtureContext {
  principal: Principal;
  /** seals `requestState`s as the agent tools' are, so a tampered one is refused before a handler runs */
  requestState: RequestStateCodec<unknown>;
  /** list changes published here reach open `subscriptions/listen` streams */
  listBus: ServerEventBus | undefined;
  /** the agent tool `name` as this caller's tools/list shows it; undefined when it is not there */
  agentTool(name: string): AgentToolSpec | undefined;
  /** runs an agent tool as its own registration does: a task of the core */
  callAgentTool(spec: AgentToolSpec, args: AgentToolArgs, toolCtx: ServerContext): Promise<CallToolResult | InputRequiredResult>;
}

/** What `fastPath` may use on one request. */
export interface McpFixtureRequest {
  principal: Principal;
  /** how the server names itself (`serverInfo` of modern results) */
  info: { name: string; title: string; version: string };
  /** the agent tool `name` as this caller's tools/list shows it; undefined when it is not there */
  agentTool(name: string): AgentToolSpec | undefined;
  /** starts an agent tool's task through the core and gives its handle, as for a client with the tasks extension (mcp-tasks.ts) */
  startToolTask(spec: AgentToolSpec, args: AgentToolArgs): Promise<Record<string, unknown>>;
}

/**
 * The module's default export, checked. A path that names no file is a configuration error at
 * start; a module that fails here is logged, and `/mcp` then answers as after a failed start.
 */
export function mcpFixtureModuleOf(exports: Record<string, unknown>, file: string): McpFixtureModule {
  const m = exports.default as Partial<McpFixtureModule> | undefined;
  if (!m || typeof m !== 'object' || typeof m.register !== 'function' || (m.fastPath !== undefined && typeof m.fastPath !== 'function')) {
    throw new Error(`mcp.fixtureModule ${file}: the default export must be an MCP fixture module ({ register(server, ctx), capabilities?, fastPath? })`);
  }
  return m as McpFixtureModule;
}
