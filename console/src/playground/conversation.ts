/**
 * A playground conversation as the agent stores it: the caller's own tasks of one context, read
 * back with A2A `ListTasks` (so a conversation's URL opens it again, on any browser the user signs
 * in with), and the caller's latest conversations with each one's first message.
 */
import { rpcCall, type Part } from '../a2a-stream.js';
import type { A2ATask } from '../a2a-task.js';

export interface Turn {
  role: 'user' | 'agent';
  parts: Part[];
  /** the streamed artifact this turn shows (`<taskId>/<artifactId>`): its later chunks join it */
  artifact?: string;
}

/**
 * The turns after one artifact chunk: the first chunk of an artifact starts its turn, a chunk with
 * `append` joins it (a streamed text reads as one text), one without replaces it — as the task
 * page folds the same events into the task's artifacts (a2a-task.ts).
 */
export function withArtifactChunk(turns: Turn[], key: string | undefined, parts: Part[], append: boolean): Turn[] {
  const at = key === undefined ? -1 : turns.findIndex((t) => t.artifact === key);
  if (at < 0) return [...turns, { role: 'agent', parts, ...(key !== undefined ? { artifact: key } : {}) }];
  const turn = turns[at]!;
  const out = [...turns];
  out[at] = { ...turn, parts: append ? joinParts(turn.parts, parts) : parts };
  return out;
}

function joinParts(existing: Part[], incoming: Part[]): Part[] {
  const out = [...existing];
  for (const part of incoming) {
    const last = out[out.length - 1];
    if (last?.text !== undefined && part.text !== undefined && last.mediaType === part.mediaType) out[out.length - 1] = { ...last, text: last.text + part.text };
    else out.push(part);
  }
  return out;
}

interface ListTasksAnswer {
  tasks: Array<A2ATask & { status?: { state?: string; timestamp?: string } }>;
}

/** The playground's URL for an agent, and for one of its conversations. */
export const conversationHref = (agentId: string, contextId?: string) => `#/agents/${encodeURIComponent(agentId)}${contextId ? `/${encodeURIComponent(contextId)}` : ''}`;

/** The first user message in one short line (the server's task lists show the same preview). */
export function firstMessage(task: A2ATask, max = 60): string {
  const first = task.history?.find((m) => m.role === 'ROLE_USER');
  const line = (first?.parts ?? [])
    .map((p) => p.text ?? (p.data !== undefined ? JSON.stringify(p.data) : p.filename ? `[file ${p.filename}]` : ''))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = [...line];
  return chars.length > max
    ? `${chars
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`
    : line || '(no text)';
}

export interface Restored {
  turns: Turn[];
  /** the newest task: the one a reply to input-required continues */
  latest?: { id: string; state?: string };
}

/** A stored conversation as turns: each task's history in order, then its artifacts, oldest task first. */
export async function loadConversation(agentId: string, contextId: string): Promise<Restored> {
  const answer = await rpcCall<ListTasksAnswer>(agentId, 'ListTasks', { contextId, includeArtifacts: true, pageSize: 100 });
  const tasks = [...answer.tasks].reverse();
  const turns: Turn[] = [];
  for (const t of tasks) {
    for (const m of t.history ?? []) if (m.parts?.length) turns.push({ role: m.role === 'ROLE_USER' ? 'user' : 'agent', parts: m.parts });
    // A stored artifact keeps its streamed chunks as parts: joined as the live stream showed them.
    for (const a of t.artifacts ?? []) if (a.parts?.length) turns.push({ role: 'agent', parts: joinParts([], a.parts) });
  }
  const newest = answer.tasks[0];
  return { turns, ...(newest ? { latest: { id: newest.id, ...(newest.status?.state ? { state: newest.status.state } : {}) } } : {}) };
}

export interface ConversationSummary {
  contextId: string;
  preview: string;
  updated?: string;
  state?: string;
}

/** How many of the caller's latest conversations the playground lists. */
const RECENT = 8;

/** The caller's latest conversations with this agent, newest first (from its latest tasks). */
export async function recentConversations(agentId: string): Promise<ConversationSummary[]> {
  const answer = await rpcCall<ListTasksAnswer>(agentId, 'ListTasks', { pageSize: 100 });
  const byContext = new Map<string, ConversationSummary>();
  for (const t of answer.tasks) {
    if (!t.contextId) continue;
    const seen = byContext.get(t.contextId);
    // Tasks come newest first: the first seen gives the time and state, the last the first message.
    if (seen) seen.preview = firstMessage(t);
    else if (byContext.size < RECENT) {
      byContext.set(t.contextId, {
        contextId: t.contextId,
        preview: firstMessage(t),
        ...(t.status?.timestamp ? { updated: t.status.timestamp } : {}),
        ...(t.status?.state ? { state: t.status.state } : {}),
      });
    }
  }
  return [...byContext.values()];
}
