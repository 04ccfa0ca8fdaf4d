/**
 * Runs one tool call: a SendMessage to the hosted agent through the core as the caller
 * (AgentContext.agents), followed to the sub-task's end. A refusal by the core (the caller lacks a
 * scope, a quota is spent) is the tool's result, so the model can say so; it never fails the run.
 * A sub-task that stops to ask (INPUT_REQUIRED, AUTH_REQUIRED) is handed back to the loop.
 */
import { randomUUID } from 'node:crypto';
import type { HostedAgents } from '../../core/agents/agent-definition.js';
import type { Context } from '../../observability/tracing/index.js';
import { SKILL_METADATA_KEY } from '../../protocol/a2a/skill-metadata.js';
import { toA2AError } from '../../protocol/a2a/errors.js';
import type { Message, Part, StreamResponse, TaskState } from '../../protocol/a2a/types.js';
import type { AgentTool } from './agent-tools.js';
import type { ToolCall } from './model.js';
import { messageText } from './run-steps.js';

export type ToolRun =
  | { kind: 'done'; status: string; text: string; taskId?: string }
  /** the sub-task stopped for the user: its question goes to the caller */
  | { kind: 'asks'; state: TaskState; question: string; taskId: string };

export interface ToolCallHooks {
  signal: AbortSignal;
  /** the `execute_tool` span the sub-task's call hangs under (tracing on) */
  trace?: Context | undefined;
  /** the sub-task exists (its first event): the loop shows the call and can cancel it */
  onTask(taskId: string): void;
}

/** The request a tool call sends: an MCP tool's arguments as a data part, else the words asked. */
export function toolRequest(tool: AgentTool, call: ToolCall): { parts: Part[]; skill: string } {
  if (tool.structured) return { parts: [{ data: { tool: tool.skillId, arguments: call.arguments } as Part['data'] }], skill: tool.skillId };
  const words = typeof call.arguments.request === 'string' ? call.arguments.request : JSON.stringify(call.arguments);
  return { parts: [{ text: words }], skill: tool.skillId };
}

export async function runToolCall(agents: HostedAgents, tool: AgentTool, call: ToolCall, hooks: ToolCallHooks): Promise<ToolRun> {
  const { parts, skill } = toolRequest(tool, call);
  const message: Message = { messageId: randomUUID(), role: 'ROLE_USER', parts };
  return follow(agents, tool.agentId, { message, metadata: { [SKILL_METADATA_KEY]: skill } }, hooks);
}

/** The user's reply to a sub-task that asked: sent to that task, followed to its next stop. */
export function continueSubTask(agents: HostedAgents, agentId: string, taskId: string, parts: Part[], hooks: ToolCallHooks): Promise<ToolRun> {
  return follow(agents, agentId, { message: { messageId: randomUUID(), role: 'ROLE_USER', taskId, parts } }, hooks);
}

async function follow(agents: HostedAgents, agentId: string, req: { message: Message; metadata?: Record<string, string> }, hooks: ToolCallHooks): Promise<ToolRun> {
  let taskId: string | undefined;
  let state: TaskState | undefined;
  let statusText = '';
  const artifacts = new Map<string, string[]>();
  const seen = (id: string) => {
    if (taskId === undefined) {
      taskId = id;
      hooks.onTask(id);
    }
  };
  try {
    for await (const ev of agents.sendStreamingMessage(agentId, req, { signal: hooks.signal, trace: hooks.trace })) {
      const r = ev as StreamResponse;
      if ('message' in r) return { kind: 'done', status: 'answered', text: messageText(r.message) };
      if ('task' in r) {
        seen(r.task.id);
        state = r.task.status.state;
        statusText = r.task.status.message ? messageText(r.task.status.message) : '';
        for (const a of r.task.artifacts ?? []) artifacts.set(a.artifactId, [partsText(a.parts)]);
      } else if ('statusUpdate' in r) {
        seen(r.statusUpdate.taskId);
        state = r.statusUpdate.status.state;
        statusText = r.statusUpdate.status.message ? messageText(r.statusUpdate.status.message) : '';
      } else if ('artifactUpdate' in r) {
        seen(r.artifactUpdate.taskId);
        const a = r.artifactUpdate.artifact;
        const text = partsText(a.parts);
        if (r.artifactUpdate.append && artifacts.has(a.artifactId)) artifacts.get(a.artifactId)!.push(text);
        else artifacts.set(a.artifactId, [text]);
      }
    }
  } catch (e) {
    if (hooks.signal.aborted) throw e;
    const err = toA2AError(e);
    return { kind: 'done', status: 'refused', text: `${err.identity.reason}: ${err.message}`, ...(taskId ? { taskId } : {}) };
  }
  if ((state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_AUTH_REQUIRED') && taskId) return { kind: 'asks', state, question: statusText || 'The agent needs more information.', taskId };
  const result = [...artifacts.values()].map((chunks) => chunks.join('')).filter((t) => t !== '');
  const text = state === 'TASK_STATE_COMPLETED' ? result.join('\n\n') || statusText : [statusText, ...result].filter(Boolean).join('\n\n');
  return { kind: 'done', status: stateName(state), text, ...(taskId ? { taskId } : {}) };
}

function partsText(parts: readonly Part[]): string {
  return parts.map((p) => (typeof p.text === 'string' ? p.text : p.data !== undefined ? JSON.stringify(p.data) : p.url ? `[file: ${p.url}]` : p.raw ? `[${p.mediaType ?? 'binary'} content]` : '')).join('');
}

function stateName(state: TaskState | undefined): string {
  return state ? state.replace('TASK_STATE_', '').toLowerCase() : 'unknown';
}
