/**
 * Turns the remote task's events into the local task's: artifacts keep their ids and chunking,
 * WORKING keeps its status text, and the remote's final state ends the local task the same way.
 * The local task is the caller's view; the remote's task and context ids stay inside this agent.
 */
import type { AgentContext } from '../sdk/agent.js';
import type { Message, StreamResponse, TaskState, TaskStatus } from '../../client/index.js';

export interface RemoteRef {
  taskId?: string;
  contextId?: string;
}

const textOf = (m: Message | undefined): string =>
  (m?.parts ?? [])
    .map((p) => p.text ?? '')
    .filter(Boolean)
    .join('\n');

/** Applies a status; returns the state when it ends this run (terminal or interrupted). */
export function applyStatus(ctx: AgentContext, status: TaskStatus): TaskState | undefined {
  const msg = status.message?.parts?.length ? status.message.parts : undefined;
  switch (status.state) {
    case 'TASK_STATE_SUBMITTED':
      return undefined;
    case 'TASK_STATE_WORKING':
      ctx.working(msg);
      return undefined;
    case 'TASK_STATE_COMPLETED':
      ctx.complete(msg);
      return status.state;
    case 'TASK_STATE_FAILED':
      ctx.fail(textOf(status.message) || 'the remote agent failed the task');
      return status.state;
    case 'TASK_STATE_REJECTED':
      ctx.reject(textOf(status.message) || 'the remote agent rejected the task');
      return status.state;
    case 'TASK_STATE_CANCELED':
      ctx.fail('the remote agent canceled the task');
      return status.state;
    case 'TASK_STATE_INPUT_REQUIRED':
      ctx.askInput(msg ?? 'The remote agent needs more input.');
      return status.state;
    case 'TASK_STATE_AUTH_REQUIRED':
      ctx.requireAuth(msg ?? 'The remote agent needs authorization.');
      return status.state;
  }
}

/** Relays one remote event; returns the final state once the run should end. */
export function relayEvent(ctx: AgentContext, r: StreamResponse, ref: RemoteRef, artifactIds: Map<string, string>, answering = false): TaskState | 'message' | undefined {
  if ('message' in r) {
    // A direct reply: the local side still has a task (the core created it), which completes with the reply.
    ctx.complete(r.message.parts);
    return 'message';
  }
  if ('task' in r) {
    ref.taskId = r.task.id;
    ref.contextId = r.task.contextId;
    // A snapshot (first event, or after a resume without event ids): artifacts not relayed yet.
    for (const a of r.task.artifacts ?? []) {
      if (!artifactIds.has(a.artifactId)) artifactIds.set(a.artifactId, ctx.artifact(a.parts, { ...(a.name ? { name: a.name } : {}), ...(a.description ? { description: a.description } : {}) }));
    }
    // Answering an interrupted task: its stream opens with the state being answered; wait for the next.
    if (answering && (r.task.status.state === 'TASK_STATE_INPUT_REQUIRED' || r.task.status.state === 'TASK_STATE_AUTH_REQUIRED')) return undefined;
    return applyStatus(ctx, r.task.status);
  }
  if ('statusUpdate' in r) {
    ref.taskId ??= r.statusUpdate.taskId;
    ref.contextId ??= r.statusUpdate.contextId;
    return applyStatus(ctx, r.statusUpdate.status);
  }
  const u = r.artifactUpdate;
  ref.taskId ??= u.taskId;
  const local = artifactIds.get(u.artifact.artifactId);
  const id = ctx.artifact(u.artifact.parts, {
    ...(local ? { artifactId: local } : {}),
    ...(u.artifact.name ? { name: u.artifact.name } : {}),
    ...(u.append && local ? { append: true } : {}),
    ...(u.lastChunk !== undefined ? { lastChunk: u.lastChunk } : {}),
  });
  artifactIds.set(u.artifact.artifactId, id);
  return undefined;
}
