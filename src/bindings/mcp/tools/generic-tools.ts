/**
 * Generic tools on `/mcp` (`mcp.genericTools`): `list_agents`, `send_message`, `get_task`,
 * `cancel_task`. They reach any agent by id, whatever its skills, and tasks started by any tool,
 * so a client can continue a context, poll a long task or cancel it. Like the per-skill tools they
 * are thin: each is one core call (A2AHandler) with the caller's principal, so the core's
 * authorization applies unchanged; an agent or task the caller may not see reads as not found.
 */
import { fromJsonSchema, type CallToolResult, type McpServer, type ServerContext, type StandardSchemaWithJSON, type ToolAnnotations } from '@modelcontextprotocol/server';
import type { RegisteredAgent } from '../../../core/agents/agent-registry.js';
import { CallContext } from '../../../core/a2a-handler.js';
import type { AuthorizationPolicy } from '../../../core/authz/policy.js';
import type { Principal } from '../../../core/authz/principal.js';
import { A2AError } from '../../../protocol/a2a/errors.js';
import type { JsonValue, Task } from '../../../protocol/a2a/types.js';
import { callAgentTool, type AgentToolCallDeps, type AgentToolSpec, type ToolCallEra } from './agent-tools.js';
import { errorResult, partsText, partsToContent } from './tool-result.js';

export const GENERIC_TOOL_NAMES = ['list_agents', 'send_message', 'get_task', 'cancel_task'] as const;
export type GenericToolName = (typeof GENERIC_TOOL_NAMES)[number];

export interface GenericToolsDeps extends AgentToolCallDeps {
  /** the authorization policy: agents the caller may not see are left out and read as unknown */
  policy?: AuthorizationPolicy;
}

const agentId = { type: 'string', minLength: 1, description: 'The agent id, as list_agents returns it.' };
const taskId = { type: 'string', minLength: 1, description: 'The task id, from an earlier result (`_meta["agentport/taskId"]` or `taskId`).' };

interface GenericToolSpec {
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: ToolAnnotations;
}

export const GENERIC_TOOLS: Record<GenericToolName, GenericToolSpec> = {
  list_agents: {
    title: 'List agents',
    description: 'Lists the agents you can use: id, name, description and skills. Call send_message with an agent id to talk to one.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  send_message: {
    title: 'Send a message to an agent',
    description:
      'Sends a message to an agent and returns its answer (the finished task, or its question when it needs more input). ' +
      'Pass contextId to continue a conversation, taskId to answer a task that asked for input, skill to name one of its skills.',
    inputSchema: {
      type: 'object',
      properties: {
        agentId,
        text: { type: 'string', minLength: 1, description: 'The message, in plain language.' },
        data: { type: 'object', additionalProperties: true, description: 'Optional structured input, sent as a JSON data part.' },
        contextId: { type: 'string', minLength: 1, description: 'Continue this conversation (the contextId of an earlier result).' },
        taskId,
        skill: { type: 'string', minLength: 1, description: 'The skill id the message is for, when the agent has several.' },
      },
      required: ['agentId', 'text'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  get_task: {
    title: 'Get a task',
    description: "Returns a task's state, its latest status message and its artifacts.",
    inputSchema: {
      type: 'object',
      properties: { agentId, taskId, historyLength: { type: 'integer', minimum: 0, maximum: 100, description: 'How many recent messages to include (default 0).' } },
      required: ['agentId', 'taskId'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  cancel_task: {
    title: 'Cancel a task',
    description: 'Cancels a task that is still running or waiting for input.',
    inputSchema: { type: 'object', properties: { agentId, taskId }, required: ['agentId', 'taskId'], additionalProperties: false },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
};

/** Compiled once per process: the schemas are constants. */
let compiled: Record<GenericToolName, StandardSchemaWithJSON> | undefined;
function schemas(): Record<GenericToolName, StandardSchemaWithJSON> {
  compiled ??= Object.fromEntries(GENERIC_TOOL_NAMES.map((n) => [n, fromJsonSchema(GENERIC_TOOLS[n].inputSchema as Parameters<typeof fromJsonSchema>[0]) as StandardSchemaWithJSON])) as Record<
    GenericToolName,
    StandardSchemaWithJSON
  >;
  return compiled;
}

interface SendArgs {
  agentId: string;
  text: string;
  data?: Record<string, unknown>;
  contextId?: string;
  taskId?: string;
  skill?: string;
}

/** The arguments each generic tool's input schema (GENERIC_TOOLS) admits. */
interface GenericToolArgs {
  list_agents: Record<string, never>;
  send_message: SendArgs;
  get_task: { agentId: string; taskId: string; historyLength?: number };
  cancel_task: { agentId: string; taskId: string };
}

/**
 * Registers the generic tools on one server instance. A name already taken by an agent's tool
 * (an agent `send` with a skill `message`) keeps the agent's tool; the generic one is left out.
 */
export function registerGenericTools(server: McpServer, d: GenericToolsDeps, agents: readonly RegisteredAgent[], principal: Principal, era: () => ToolCallEra, taken: ReadonlySet<string>): void {
  const s = schemas();
  const visible = (id: string): RegisteredAgent | undefined => {
    const a = agents.find((x) => x.id === id);
    return a && (!d.policy || d.policy.canSeeAgent(principal, a.id, 'mcp')) ? a : undefined;
  };
  const ctxOf = (id: string): CallContext => new CallContext(id, principal);
  const register = <N extends GenericToolName>(name: N, run: (args: GenericToolArgs[N], ctx: ServerContext) => Promise<CallToolResult> | CallToolResult) => {
    if (taken.has(name)) return;
    const t = GENERIC_TOOLS[name];
    const inputSchema: StandardSchemaWithJSON = s[name];
    // the SDK validated args against inputSchema, the JSON Schema of GenericToolArgs[N], before calling
    server.registerTool(name, { title: t.title, description: t.description, inputSchema, annotations: { title: t.title, ...t.annotations } }, (args, ctx) => run(args as GenericToolArgs[N], ctx));
  };

  register('list_agents', () => {
    const list = agents
      .filter((a) => visible(a.id))
      .map((a) => ({
        id: a.id,
        name: a.publicCard.name,
        description: a.publicCard.description,
        url: a.baseUrl,
        skills: a.publicCard.skills.map((k) => ({ id: k.id, name: k.name, description: k.description })),
      }));
    const structuredContent = { agents: list };
    return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
  });

  register('send_message', (args, ctx) => {
    if (!visible(args.agentId)) return notFoundAgent(args.agentId);
    const spec: AgentToolSpec = {
      name: 'send_message',
      agentId: args.agentId,
      skillId: args.skill ?? '',
      title: GENERIC_TOOLS.send_message.title,
      description: GENERIC_TOOLS.send_message.description,
      inputSchema: GENERIC_TOOLS.send_message.inputSchema,
      annotations: GENERIC_TOOLS.send_message.annotations,
    };
    return callAgentTool(
      d,
      spec,
      { message: args.text, ...(args.data ? { data: args.data } : {}), ...(args.taskId ? { taskId: args.taskId } : {}), ...(args.contextId ? { contextId: args.contextId } : {}) },
      principal,
      ctx,
      era(),
    ) as Promise<CallToolResult>;
  });

  register('get_task', async (args) => {
    if (!visible(args.agentId)) return notFoundAgent(args.agentId);
    try {
      const task = await d.handler.getTask(ctxOf(args.agentId), { id: args.taskId, historyLength: args.historyLength ?? 0 });
      return taskSnapshot(task);
    } catch (err) {
      return coreError(err, args.taskId, d);
    }
  });

  register('cancel_task', async (args) => {
    if (!visible(args.agentId)) return notFoundAgent(args.agentId);
    try {
      return taskSnapshot(await d.handler.cancelTask(ctxOf(args.agentId), { id: args.taskId }));
    } catch (err) {
      return coreError(err, args.taskId, d);
    }
  });
}

/** A task as a tool result: a summary for the model, the artifacts as content, the facts as structuredContent. */
export function taskSnapshot(task: Task): CallToolResult {
  const state = task.status.state;
  const statusText = partsText(task.status.message?.parts);
  const content: CallToolResult['content'] = [{ type: 'text', text: `Task ${task.id} is ${state.replace('TASK_STATE_', '').toLowerCase()}${statusText ? `: ${statusText}` : '.'}` }];
  const data: JsonValue[] = [];
  for (const a of task.artifacts ?? []) {
    const r = partsToContent(a.parts, `agentport://tasks/${task.id}/artifacts/${encodeURIComponent(a.artifactId)}`);
    content.push(...r.content);
    data.push(...r.data);
  }
  const structuredContent = {
    taskId: task.id,
    contextId: task.contextId,
    state,
    ...(statusText ? { statusMessage: statusText } : {}),
    artifacts: (task.artifacts ?? []).map((a) => ({ artifactId: a.artifactId, ...(a.name ? { name: a.name } : {}), text: partsText(a.parts) })),
    ...(data.length ? { data } : {}),
    ...(task.history?.length ? { history: task.history.map((m) => ({ role: m.role, text: partsText(m.parts) })) } : {}),
  };
  return {
    content,
    structuredContent,
    _meta: { 'agentport/taskId': task.id, 'agentport/contextId': task.contextId, 'agentport/state': state },
  };
}

function notFoundAgent(id: string): CallToolResult {
  return errorResult(`No agent "${id}" here; call list_agents for the agents you can use.`);
}

function coreError(err: unknown, taskId: string, d: GenericToolsDeps): CallToolResult {
  if (err instanceof A2AError) return errorResult(err.kind === 'TaskNotFound' ? `Task ${taskId} was not found.` : err.message);
  d.log.warn({ err }, 'mcp: generic tool failed');
  return errorResult('The tool call failed inside Agentport.');
}
