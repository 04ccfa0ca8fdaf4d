/**
 * The MCP tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`, on 2026-07-28) over our
 * durable A2A tasks. A client that declares the extension in a request's capabilities gets, for
 * an agent tool, a task handle instead of a held stream: `tools/call` starts the A2A task without
 * waiting (`returnImmediately`) and answers a flat `CreateTaskResult`; `tasks/get` reads the A2A
 * task (the tool result inlined once it is terminal), `tasks/update` answers its INPUT_REQUIRED,
 * `tasks/cancel` cancels it. Everything goes through the core with the caller's principal, so the
 * task is the same one A2A clients see, and another caller's task is an unknown one.
 *
 * `@modelcontextprotocol/server` 2.4.0 has no task runtime and does not route `tasks/*`, so the
 * endpoint answers these methods itself (modern era only; the 2025 experimental tasks are not
 * offered).
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { type A2AHandler, CallContext } from '../../../core/a2a-handler.js';
import type { Principal } from '../../../core/authz/principal.js';
import { uuidv7 } from '../../../core/ids/uuid-v7.js';
import { A2AError } from '../../../protocol/a2a/errors.js';
import { TERMINAL_STATES, type JsonObject, type Message, type Part, type Task } from '../../../protocol/a2a/types.js';
import { SERVER_FAILURE_MESSAGES } from '../../../core/tasks/task-service.js';
import { SKILL_METADATA_KEY, type AgentToolArgs, type AgentToolSpec } from '../tools/agent-tools.js';
import { ANSWER_KEY } from '../tools/input-required.js';
import { partsText, taskToToolResult } from '../tools/tool-result.js';
import { MCP_CODE } from '../mcp-errors.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/**
 * An agent that names its own MCP inputRequests puts them in a data part of its INPUT_REQUIRED
 * status under this key; `tasks/update` then sends the answers to those keys back as a data part
 * under MCP_INPUT_RESPONSES_KEY (unknown keys dropped). Agents that do not get the one free-text
 * question ANSWER_KEY.
 */
export const MCP_INPUT_REQUESTS_KEY = 'mcpInputRequests';
export const MCP_INPUT_RESPONSES_KEY = 'mcpInputResponses';
const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
/** How long a task stays readable: the A2A task is durable, this is only the promise made. */
const TTL_MS = 24 * 60 * 60 * 1000;
const POLL_INTERVAL_MS = 1000;

export type McpTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a request's client capabilities (the modern `_meta` envelope) declare the extension. */
export function declaresTasks(meta: Record<string, unknown> | undefined): boolean {
  const caps = meta?.[CAPABILITIES_KEY];
  return isObject(caps) && isObject(caps.extensions) && isObject(caps.extensions[TASKS_EXTENSION]);
}

/** The MCP task id names the agent too: the core reads tasks per agent. */
export const mcpTaskId = (agentId: string, taskId: string) => `${agentId}:${taskId}`;
function parseTaskId(id: unknown): { agentId: string; taskId: string } | undefined {
  if (typeof id !== 'string') return undefined;
  const i = id.indexOf(':');
  return i > 0 && i < id.length - 1 ? { agentId: id.slice(0, i), taskId: id.slice(i + 1) } : undefined;
}

function statusOf(task: Task): McpTaskStatus {
  const state = task.status.state;
  if (state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_AUTH_REQUIRED') return 'input_required';
  if (state === 'TASK_STATE_CANCELED') return 'cancelled';
  // SEP-2663 keeps `failed` for protocol-level errors: a task the server ended because its agent
  // crashed or was lost. An agent's own FAILED or REJECTED is the tool's error: `completed` with `isError`.
  if (isServerFailure(task)) return 'failed';
  if (TERMINAL_STATES.has(state)) return 'completed';
  return 'working';
}

function isServerFailure(task: Task): boolean {
  return task.status.state === 'TASK_STATE_FAILED' && SERVER_FAILURE_MESSAGES.has(partsText(task.status.message?.parts));
}

/** The inputRequests an agent named itself (MCP_INPUT_REQUESTS_KEY), if it did. */
function declaredInputRequests(task: Task): Record<string, unknown> | undefined {
  for (const p of task.status.message?.parts ?? []) {
    if ('data' in p && isObject(p.data) && isObject(p.data[MCP_INPUT_REQUESTS_KEY])) return p.data[MCP_INPUT_REQUESTS_KEY];
  }
  return undefined;
}

/** Task ids are UUIDv7 (core/ids): their first 48 bits are the creation time in ms. */
function createdAtOf(task: Task): string {
  const hex = task.id.replace(/-/g, '');
  const ms = /^[0-9a-f]{32}$/i.test(hex) && hex[12] === '7' ? parseInt(hex.slice(0, 12), 16) : NaN;
  return new Date(Number.isFinite(ms) ? ms : Date.parse(task.status.timestamp ?? '') || Date.now()).toISOString();
}

function envelopeOf(agentId: string, task: Task) {
  const status = statusOf(task);
  const note = partsText(task.status.message?.parts);
  return {
    taskId: mcpTaskId(agentId, task.id),
    status,
    ...(note ? { statusMessage: note } : {}),
    createdAt: createdAtOf(task),
    lastUpdatedAt: new Date(Date.parse(task.status.timestamp ?? '') || Date.now()).toISOString(),
    ttlMs: TTL_MS,
    pollIntervalMs: POLL_INTERVAL_MS,
  };
}

/** `tools/call` with the extension declared: start the A2A task and answer its handle. */
export async function startToolTask(handler: A2AHandler, spec: AgentToolSpec, args: AgentToolArgs, principal: Principal): Promise<Record<string, unknown>> {
  // The messageId is minted here: no retry of an earlier request can carry it.
  const ctx = CallContext.of(spec.agentId, principal, { messageIdMinted: true });
  const parts: Part[] = [{ text: args.message }];
  if (args.data !== undefined) parts.push({ data: args.data as Part['data'], mediaType: 'application/json' });
  const message: Message = { messageId: uuidv7(), role: 'ROLE_USER', parts, ...(args.taskId ? { taskId: args.taskId } : {}) };
  const r = await handler.sendMessage(ctx, { message, configuration: { returnImmediately: true }, metadata: { [SKILL_METADATA_KEY]: spec.skillId } });
  // An agent that answers with a message made no task: the server decides, and this is a plain result.
  if (!('task' in r)) return { content: (r.message.parts ?? []).map((p) => ({ type: 'text', text: partsText([p]) })), resultType: 'complete' };
  return { resultType: 'task', ...envelopeOf(spec.agentId, r.task) };
}

export type TasksAnswer = { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown }; status: number };

const unknownTask = (id: unknown): TasksAnswer => ({ status: 200, error: { code: MCP_CODE.InvalidParams, message: `Unknown task: ${String(id)}` } });

/**
 * `tasks/get`, `tasks/update`, `tasks/cancel` for a caller that declared the extension.
 * `toolNameOf` names the tool whose guidance text a result carries.
 */
export async function serveTasksMethod(
  handler: A2AHandler,
  method: string,
  params: Record<string, unknown>,
  principal: Principal,
  agentVisible: (agentId: string) => boolean,
  toolNameOf: (agentId: string) => string,
): Promise<TasksAnswer> {
  const ref = parseTaskId(params.taskId);
  if (!ref || !agentVisible(ref.agentId)) return unknownTask(params.taskId);
  // One context per call: the pipeline's stages fill it in place.
  const ctx = () => new CallContext(ref.agentId, principal);
  const read = () => handler.getTask(ctx(), { id: ref.taskId });
  try {
    if (method === 'tasks/cancel') {
      const task = await read();
      // Idempotent: a terminal task gets the same empty ack (the spec keeps -32602 for unknown ids).
      if (!TERMINAL_STATES.has(task.status.state))
        await handler.cancelTask(ctx(), { id: ref.taskId }).catch((err: unknown) => {
          if (!(err instanceof A2AError && err.kind === 'TaskNotCancelable')) throw err;
        });
      return { result: { resultType: 'complete' } };
    }
    if (method === 'tasks/update') {
      const task = await read();
      const declared = declaredInputRequests(task);
      if (declared && statusOf(task) === 'input_required') {
        // Answers to keys the task did not ask are ignored; with none left there is nothing to send.
        const responses = isObject(params.inputResponses) ? params.inputResponses : {};
        const known = Object.fromEntries(Object.entries(responses).filter(([k]) => k in declared)) as JsonObject;
        if (Object.keys(known).length > 0) {
          const message: Message = { messageId: uuidv7(), role: 'ROLE_USER', parts: [{ text: 'inputResponses' }, { data: { [MCP_INPUT_RESPONSES_KEY]: known } }], taskId: task.id, contextId: task.contextId };
          await handler.sendMessage(ctx(), { message, configuration: { returnImmediately: true } });
        }
        return { result: { resultType: 'complete' } };
      }
      const answer = answerOf(params.inputResponses);
      if (answer === undefined) return { status: 200, error: { code: MCP_CODE.InvalidParams, message: `inputResponses.${ANSWER_KEY} must be an accepted elicitation with a non-empty "${ANSWER_KEY}"` } };
      if (statusOf(task) !== 'input_required') return { status: 200, error: { code: MCP_CODE.InvalidParams, message: `Task ${String(params.taskId)} is not waiting for input` } };
      const message: Message = { messageId: uuidv7(), role: 'ROLE_USER', parts: [{ text: answer }], taskId: task.id, contextId: task.contextId };
      await handler.sendMessage(ctx(), { message, configuration: { returnImmediately: true } });
      return { result: { resultType: 'complete' } };
    }
    const task = await read();
    const env = envelopeOf(ref.agentId, task);
    const extra: Record<string, unknown> = {};
    if (env.status === 'completed' || env.status === 'cancelled') extra.result = withoutTaskMeta(taskToToolResult(task, toolNameOf(ref.agentId)));
    if (env.status === 'failed') extra.error = { code: MCP_CODE.InternalError, message: partsText(task.status.message?.parts) };
    const declared = env.status === 'input_required' ? declaredInputRequests(task) : undefined;
    if (declared) extra.inputRequests = declared;
    else if (env.status === 'input_required') {
      extra.inputRequests = {
        [ANSWER_KEY]: {
          method: 'elicitation/create',
          params: {
            message: partsText(task.status.message?.parts) || 'The agent needs more input.',
            requestedSchema: { type: 'object', properties: { [ANSWER_KEY]: { type: 'string', title: 'Answer' } }, required: [ANSWER_KEY] },
          },
        },
      };
    }
    return { result: { ...env, ...extra, resultType: 'complete' } };
  } catch (err) {
    if (err instanceof A2AError && err.kind === 'TaskNotFound') return unknownTask(params.taskId);
    throw err;
  }
}

/** The inlined result carries no per-task `_meta` of ours: the task id is at the root. */
function withoutTaskMeta(r: CallToolResult): CallToolResult {
  const { _meta: _drop, ...rest } = r;
  return rest;
}

function answerOf(responses: unknown): string | undefined {
  if (!isObject(responses)) return undefined;
  const r = responses[ANSWER_KEY];
  if (!isObject(r) || r.action !== 'accept' || !isObject(r.content)) return undefined;
  const text = r.content[ANSWER_KEY];
  return typeof text === 'string' && text.trim() !== '' ? text : undefined;
}
