/**
 * Agents as MCP tools: one tool per public skill. A call becomes a SendStreamingMessage through the
 * core (the same A2AHandler the A2A bindings call), so the task is durable, visible over A2A and
 * authorized like any other; status updates become progress notifications; the final task
 * becomes the tool result (tool-result.ts). Cancellation from the client cancels the task.
 */
import { QuotaExceededError } from '../../../protocol/a2a/quota-exceeded.js';
import { UrlElicitationRequiredError, type CallToolResult, type InputRequiredResult, type ServerContext, type ToolAnnotations } from '@modelcontextprotocol/server';
import type { SkillAnnotationsConfig } from '../../../config/config.js';
import type { RegisteredAgent } from '../../../core/agents/agent-registry.js';
import { type A2AHandler, CallContext, type CallFields } from '../../../core/a2a-handler.js';
import { AccessDenied } from '../../../core/authz/access-denied.js';
import { UnknownTenant } from '../../../core/authz/unknown-agent.js';
import type { Principal } from '../../../core/authz/principal.js';
import type { UsageDraft } from '../../../core/usage/usage-draft.js';
import { uuidv7 } from '../../../core/ids/uuid-v7.js';
import { applyEvent, structuredCloneTask } from '../../../core/task-state/task-projection.js';
import { A2AError } from '../../../protocol/a2a/errors.js';
import { INTERRUPTED_STATES, TERMINAL_STATES, type JsonObject, type Message, type Part, type SendMessageRequest, type Task, type TaskState } from '../../../protocol/a2a/types.js';
import type { InFlightCalls } from './in-flight-calls.js';
import { askForInput, askToConnect, clientTakesFormElicitation, clientTakesUrlElicitation, continuationOf, type TaskStateCodec } from './input-required.js';
import { connectElicitationRequired, connectLinkOf, connectMessage, connectToolError } from './url-elicitation.js';
import { errorResult, messageToToolResult, partsText, taskToToolResult } from './tool-result.js';
import { toolCallMessage, toolResultOf } from '../../../protocol/a2a/tool-call.js';

export interface AgentToolSpec {
  name: string;
  agentId: string;
  skillId: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: ToolAnnotations;
  /**
   * A tool the agent contributes (contributed-tools.ts): the call is sent as that tool's call
   * with the arguments as given (`AgentToolArgs.data`), and answered with the result the tool
   * left on its task. `pages`: where the agent's item pages are served.
   */
  contributed?: { tool: string; pages?: string };
}

export interface AgentToolArgs {
  message: string;
  data?: Record<string, unknown>;
  taskId?: string;
  /** continue this A2A context (generic-tools.ts `send_message`) */
  contextId?: string;
}

import { SKILL_METADATA_KEY } from '../../../protocol/a2a/skill-metadata.js';

export { SKILL_METADATA_KEY };

const MAX_TOOL_NAME = 64;

/** `[A-Za-z0-9_.-]`, at most 64 characters (Claude's directory limit; the spec allows 128). */
export function toolName(agentId: string, skillId: string): string {
  const clean = (s: string) => s.replace(/[^A-Za-z0-9_.-]+/g, '_');
  const name = `${clean(agentId)}_${clean(skillId)}`;
  return name.length <= MAX_TOOL_NAME ? name : name.slice(0, MAX_TOOL_NAME);
}

export const AGENT_TOOL_INPUT_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    message: { type: 'string', minLength: 1, description: 'What to ask the agent, in plain language.' },
    data: { type: 'object', description: 'Optional structured input, sent to the agent as a JSON data part.', additionalProperties: true },
    taskId: {
      type: 'string',
      minLength: 1,
      description: 'Continue an earlier task that asked for more input: its task id from the previous result.',
    },
  },
  required: ['message'],
  additionalProperties: false,
};

/** The hints configured for a skill (`agents[].skills[id].annotations`), if any. */
export type SkillAnnotationsLookup = (agentId: string, skillId: string) => SkillAnnotationsConfig | undefined;

/**
 * Hints for clients that gate confirmations on them. Agents whose behaviour is known say so
 * (`AgentDefinition.toolAnnotations`); for any other the honest default is "may act on the world,
 * not known to be read-only". Each hint set in the skill's config replaces the agent's or default.
 */
function annotationsFor(agent: RegisteredAgent, skillId: string, title: string, configured: SkillAnnotationsConfig | undefined): ToolAnnotations {
  const defaults = { title, readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
  const hints = (h: object | undefined) => Object.fromEntries(Object.entries(h ?? {}).filter(([, v]) => typeof v === 'boolean'));
  return { ...defaults, ...hints(agent.definition.toolAnnotations?.(skillId)), ...hints(configured) };
}

/** The tools of the agents, in a stable order (agents as registered, skills as on the card). */
export function agentToolSpecs(agents: readonly RegisteredAgent[], configured: SkillAnnotationsLookup = () => undefined): AgentToolSpec[] {
  const out: AgentToolSpec[] = [];
  const seen = new Set<string>();
  for (const agent of agents) {
    for (const skill of agent.publicCard.skills) {
      let name = toolName(agent.id, skill.id);
      for (let i = 2; seen.has(name); i++) name = `${toolName(agent.id, skill.id).slice(0, MAX_TOOL_NAME - 4)}_${i}`;
      seen.add(name);
      const title = `${agent.publicCard.name}: ${skill.name}`;
      const examples = skill.examples?.length
        ? ` Examples: ${skill.examples
            .slice(0, 3)
            .map((e) => JSON.stringify(e))
            .join(', ')}.`
        : '';
      out.push({
        name,
        agentId: agent.id,
        skillId: skill.id,
        title,
        description: `${skill.description} (Agent "${agent.publicCard.name}": ${agent.publicCard.description})${examples}`,
        inputSchema: AGENT_TOOL_INPUT_SCHEMA,
        annotations: annotationsFor(agent, skill.id, title, configured(agent.id, skill.id)),
      });
    }
  }
  return out;
}

/** The core's authorization refused a tool call (core/authz): the caller may not use this tool. */
export class ToolRefused extends Error {
  constructor(readonly refusal: A2AError) {
    super(refusal.message);
  }
}

/**
 * A refusal of core/stages/authorizing-handler.ts: AccessDenied, or the hidden-agent rule's
 * unknown tenant (an agent the caller may not see answers like one that is not here).
 */
export function isCoreRefusal(err: unknown): boolean {
  return err instanceof AccessDenied || err instanceof UnknownTenant;
}

/**
 * `legacy-elicitation`: a legacy session whose client declared elicitation (legacy-sessions.ts);
 * `legacy-elicitation-url`: one that declared URL mode too (url-elicitation.ts).
 */
export type ToolCallEra = 'modern' | 'legacy' | 'legacy-elicitation' | 'legacy-elicitation-url';

export interface AgentToolCallDeps {
  /** the core as MCP calls it: the call pipeline behind the surface stage (core/stages/surface.ts) */
  handler: A2AHandler;
  /**
   * The call pipeline without the surface stage in front: when given, a call's contexts are marked
   * as MCP's here (what that stage would do) and go to it directly, one composed layer fewer per
   * call (the plain path, tools/plain-tool-answer.ts).
   */
  pipeline?: A2AHandler;
  inFlight: InFlightCalls;
  log: { debug(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  /** seals MRTR `requestState`s (input-required.ts) */
  stateCodec: TaskStateCodec;
}

/**
 * Runs one tool call as an A2A task. Never throws: failures are `isError` results. In the modern
 * era, a task that stops at INPUT_REQUIRED asks its question as an MRTR round when the client
 * takes form elicitations; the retry (answer + sealed state) continues the same task. In a legacy
 * session whose client takes elicitation, the same return becomes an elicitation request.
 */
export async function callAgentTool(
  d: AgentToolCallDeps,
  spec: AgentToolSpec,
  args: AgentToolArgs,
  principal: Principal,
  ctx: ServerContext,
  era: ToolCallEra,
  /** 'throw': a refusal of the core's authorization before any task is thrown as ToolRefused instead of becoming an isError result */
  refusal: 'result' | 'throw' = 'result',
  /**
   * the request's usage draft, handed to each call context (the plain path); without it the core
   * takes the draft the principal carries (carryUsage), as for a call from inside the SDK
   */
  usage?: UsageDraft,
): Promise<CallToolResult | InputRequiredResult> {
  // One context per call: the pipeline's stages fill it in place.
  const core = d.pipeline ?? d.handler;
  const callCtx = (fields?: CallFields) => {
    const c = CallContext.of(spec.agentId, principal, fields);
    if (d.pipeline) c.onSurface('mcp', usage);
    else if (usage) c.usage = usage;
    return c;
  };
  // The messageId is minted below, per call: no retry of an earlier request can carry it.
  const sendCtx = callCtx({ messageIdMinted: true });
  // In a legacy session the SDK's shim turns the input_required return into elicitation/create.
  const mrtr = era === 'legacy-elicitation' || era === 'legacy-elicitation-url' || (era === 'modern' && clientTakesFormElicitation(ctx));
  const contributed = spec.contributed ? toolCallMessage({ tool: spec.contributed.tool, arguments: (args.data ?? {}) as JsonObject, ...(spec.contributed.pages ? { pages: spec.contributed.pages } : {}) }) : undefined;
  let parts: Part[] = contributed ? contributed.parts : [{ text: args.message }];
  if (!contributed && args.data !== undefined) parts.push({ data: args.data as Part['data'], mediaType: 'application/json' });
  let continueTaskId = args.taskId;
  if (era !== 'legacy') {
    const cont = continuationOf(ctx, { agentId: spec.agentId, tool: spec.name, sub: principal.subject });
    switch (cont.kind) {
      case 'none':
        break;
      case 'mismatch':
        return errorResult('The requestState was issued for another tool or caller; call the tool again without it.');
      case 'missing': {
        const task = await core.getTask(callCtx(), { id: cont.state.taskId }).catch(() => undefined);
        if (!task) return errorResult(`Task ${cont.state.taskId} was not found.`);
        if (task.status.state !== 'TASK_STATE_INPUT_REQUIRED' || !mrtr) return taskToToolResult(task, spec.name);
        return askForInput(d.stateCodec, cont.state, partsText(task.status.message?.parts) || 'The agent needs more input.', ctx);
      }
      case 'connect-retry':
        break;
      case 'connect-declined':
        return errorResult('You declined to connect your account; call the tool again when you want to connect it.');
      case 'declined': {
        // The user refused to answer: the task cannot go on, so it is canceled rather than left waiting.
        const task = await core.cancelTask(callCtx(), { id: cont.state.taskId }).catch(() => undefined);
        const r = errorResult(`You declined to answer; task ${cont.state.taskId} was canceled.`);
        return task ? { ...r, _meta: { 'agentport/taskId': task.id, 'agentport/contextId': task.contextId, 'agentport/state': task.status.state } } : r;
      }
      case 'answer':
        parts = [{ text: cont.text }];
        continueTaskId = cont.state.taskId;
        break;
    }
  }
  const message: Message = {
    messageId: uuidv7(),
    role: 'ROLE_USER',
    parts,
    ...(continueTaskId ? { taskId: continueTaskId } : {}),
    ...(args.contextId ? { contextId: args.contextId } : {}),
    ...(contributed?.metadata ? { metadata: contributed.metadata } : {}),
  };
  // An empty skillId (generic send_message without `skill`) names no skill.
  const req: SendMessageRequest = { message, ...(spec.skillId ? { metadata: { [SKILL_METADATA_KEY]: spec.skillId } } : {}) };

  // The client closing its request, or a legacy notifications/cancelled (in-flight-calls.ts),
  // cancels the task; a flag, not an AbortController: nothing else listens (one fewer EventTarget a call).
  let aborted = false;
  const onAbort = () => {
    if (aborted) return;
    aborted = true;
    cancelTask();
  };
  const clientSignal = ctx.mcpReq.signal;
  const untrack = d.inFlight.track(principal.subject, ctx.mcpReq.id, { abort: onAbort });

  const progressToken = ctx.mcpReq._meta?.progressToken;
  // Without a progress token (every plain call) no note is ever written: none is composed either.
  const notes = progressToken !== undefined;
  let progress = 0;
  const notifyProgress = (text: string) => {
    progress += 1;
    ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, message: text } }).catch(() => {});
  };

  let taskId: string | undefined;
  let state: TaskState | undefined;
  let direct: Message | undefined;
  // The task as the stream builds it, by the engine's own projection: the answer needs no read of
  // the store once the stream has ended (it measured ~14 µs a call, a twentieth of its CPU).
  let folded: Task | undefined;
  let cancelSent = false;
  let connect: ReturnType<typeof connectLinkOf>;
  const cancelTask = () => {
    if (!taskId || cancelSent || (state && (TERMINAL_STATES.has(state) || INTERRUPTED_STATES.has(state)))) return;
    cancelSent = true;
    d.log.debug({ taskId, tool: spec.name }, 'mcp: the client canceled a tool call; canceling its task');
    core.cancelTask(callCtx({ partOfCall: true }), { id: taskId }).catch((err: unknown) => d.log.debug({ err, taskId }, 'mcp: cancel after client abort did not apply'));
  };
  if (clientSignal.aborted) onAbort();
  else clientSignal.addEventListener('abort', onAbort, { once: true });

  try {
    for await (const { response } of core.sendStreamingMessage(sendCtx, req)) {
      if ('task' in response) folded = structuredCloneTask(response.task);
      else if (folded && !('message' in response)) folded = applyEvent(folded, response);
      if ('task' in response) {
        taskId = response.task.id;
        state = response.task.status.state;
        if (notes) notifyProgress(stateLabel(state));
      } else if ('statusUpdate' in response) {
        taskId ??= response.statusUpdate.taskId;
        state = response.statusUpdate.status.state;
        if (notes) {
          const note = partsText(response.statusUpdate.status.message?.parts);
          notifyProgress(note ? `${stateLabel(state)}: ${note}` : stateLabel(state));
        }
      } else if ('artifactUpdate' in response) {
        taskId ??= response.artifactUpdate.taskId;
        const a = response.artifactUpdate.artifact;
        if (notes) notifyProgress(`artifact ${a.name ?? a.artifactId}`);
      } else if ('message' in response) {
        direct = response.message;
      }
      if (aborted) cancelTask();
      // A connect the caller must make (the stream stays open in AUTH_REQUIRED, A2A §7.6.1): the
      // call answers at once, as its era allows (url-elicitation.ts); the retry is a new call.
      connect = connectLinkOf(response);
      if (connect) break;
    }
    if (connect && taskId) {
      await core.cancelTask(callCtx({ partOfCall: true }), { id: taskId }).catch(() => undefined);
      if (era === 'legacy-elicitation-url') throw connectElicitationRequired(connect);
      if (era === 'modern' && clientTakesUrlElicitation(ctx)) {
        const state = { v: 1 as const, taskId, contextId: folded?.contextId ?? '', agentId: spec.agentId, tool: spec.name, sub: principal.subject };
        return askToConnect(d.stateCodec, state, { url: connect.url, message: connectMessage(connect) }, ctx);
      }
      return connectToolError(connect);
    }
    if (direct && !taskId) return messageToToolResult(direct);
    if (!taskId) return errorResult('The agent returned nothing.');
    const task = folded?.id === taskId ? folded : await core.getTask(callCtx({ partOfCall: true }), { id: taskId });
    if (mrtr && task.status.state === 'TASK_STATE_INPUT_REQUIRED') {
      const question = partsText(task.status.message?.parts) || 'The agent needs more input.';
      return askForInput(d.stateCodec, { v: 1, taskId: task.id, contextId: task.contextId, agentId: spec.agentId, tool: spec.name, sub: principal.subject }, question, ctx);
    }
    // A contributed tool's answer is the result it left, unchanged (search/fetch shapes are pinned by clients).
    const own = spec.contributed ? toolResultOf(task) : undefined;
    if (own) return own as CallToolResult;
    return taskToToolResult(task, spec.name);
  } catch (err) {
    if (err instanceof UrlElicitationRequiredError) throw err; // the SDK answers it as the JSON-RPC error it is
    // The core refused the caller before any task existed: the plain path hands the call to the SDK path.
    if (refusal === 'throw' && !taskId && isCoreRefusal(err)) throw new ToolRefused(err as A2AError);
    // A quota refusal says when to retry in its text (the model reads it) and in _meta (a client can act on it).
    if (err instanceof QuotaExceededError) return { ...errorResult(err.message), _meta: { 'agentport/retryAfterSeconds': err.retryAfterSeconds, 'agentport/quotaId': err.policy.id } };
    if (err instanceof A2AError) return errorResult(`${err.message}${taskId ? ` (task ${taskId})` : ''}`);
    d.log.warn({ err, tool: spec.name }, 'mcp: tool call failed');
    return errorResult('The tool call failed inside Agentport.');
  } finally {
    untrack();
    clientSignal.removeEventListener('abort', onAbort);
  }
}

function stateLabel(state: TaskState): string {
  return state.replace('TASK_STATE_', '').toLowerCase().replace('_', ' ');
}
