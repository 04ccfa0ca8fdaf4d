/**
 * The loop's memory is the task's own event log: every model call, tool call, tool result and
 * question is a status update whose message carries a step record (a data part of media type
 * STEP_MEDIA_TYPE) beside words for people. The task's history is therefore the conversation: a
 * follow-up message, a restart or another replica rebuilds it from the task alone
 * (docs/decisions/0032-llm-loop-durability.md). Records are also what the console's run timeline shows.
 */
import type { Message, Part, Task } from '../../protocol/a2a/types.js';
import type { ModelUsage, ToolCall, ToolResult, Turn } from './model.js';

export const STEP_MEDIA_TYPE = 'application/vnd.agentport.llm-step+json';

export type StepRecord =
  | { kind: 'model'; step: number; model?: string; text: string; toolCalls: ToolCall[]; finishReason: string; usage: ModelUsage; latencyMs: number }
  | { kind: 'tool_call'; callId: string; name: string; agentId: string; skillId: string; arguments: Record<string, unknown>; taskId?: string }
  | { kind: 'tool_result'; callId: string; name: string; agentId: string; skillId: string; status: string; taskId?: string; content: string; isError: boolean }
  | { kind: 'ask_user'; callIds: string[]; question: string }
  | { kind: 'sub_input'; callId: string; name: string; agentId: string; skillId: string; taskId: string; state: string; question: string };

export function stepPart(record: StepRecord): Part {
  return { data: record as unknown as Part['data'], mediaType: STEP_MEDIA_TYPE };
}

function recordOf(p: Part): StepRecord | undefined {
  if (p.mediaType !== STEP_MEDIA_TYPE || !p.data || typeof p.data !== 'object' || Array.isArray(p.data)) return undefined;
  const kind = (p.data as { kind?: unknown }).kind;
  return typeof kind === 'string' ? (p.data as unknown as StepRecord) : undefined;
}

/** What the log says about a run so far. */
export interface Conversation {
  turns: Turn[];
  /** model calls made in this task */
  steps: number;
  /** prompt + completion tokens spent in this task */
  tokens: number;
  /** tool calls the last model call asked for that have no result yet (a restart cut them off) */
  pendingCalls: ToolCall[];
  /** the question the task is paused on, when the last record is one */
  waiting?: Extract<StepRecord, { kind: 'ask_user' } | { kind: 'sub_input' }>;
}

/** The words of a user message (data parts as JSON). */
export function messageText(m: Message): string {
  return m.parts
    .map((p) => (typeof p.text === 'string' ? p.text : p.data !== undefined ? JSON.stringify(p.data) : ''))
    .filter((t) => t !== '')
    .join('\n');
}

/**
 * Rebuilds the conversation from earlier tasks of the conversation (referenced) and this task's
 * history. The message being answered is not added: the loop decides what it is (a new question,
 * the answer to ask_user, or a reply for a sub-agent).
 */
export function rebuild(previous: readonly Task[], task: Task | undefined, current: Message | undefined): Conversation {
  const conv: Conversation = { turns: [], steps: 0, tokens: 0, pendingCalls: [] };
  for (const t of previous) replay(conv, t.history ?? [], undefined, false);
  if (task) replay(conv, task.history ?? [], current?.messageId, true);
  return conv;
}

function replay(conv: Conversation, history: readonly Message[], skipId: string | undefined, own: boolean): void {
  let open: ToolCall[] = [];
  conv.waiting = undefined;
  const results = (): ToolResult[] => {
    const last = conv.turns[conv.turns.length - 1];
    if (last?.role === 'tool') return last.results;
    const turn: Turn = { role: 'tool', results: [] };
    conv.turns.push(turn);
    return turn.results;
  };
  const answer = (callId: string, name: string, content: string, isError: boolean) => {
    results().push({ callId, name, content, isError });
    open = open.filter((c) => c.id !== callId);
  };
  for (const m of history) {
    if (m.messageId === skipId) continue;
    if (m.role === 'ROLE_USER') {
      const text = messageText(m);
      const waiting = conv.waiting;
      conv.waiting = undefined;
      if (waiting?.kind === 'ask_user') {
        for (const id of waiting.callIds) answer(id, 'ask_user', JSON.stringify({ source: 'user', data: text }), false);
      } else if (waiting?.kind !== 'sub_input' && text) {
        conv.turns.push({ role: 'user', text });
      }
      continue;
    }
    for (const p of m.parts) {
      const r = recordOf(p);
      if (!r) continue;
      if (r.kind === 'model') {
        conv.turns.push({ role: 'assistant', text: r.text, toolCalls: r.toolCalls });
        open = [...r.toolCalls];
        if (own) {
          conv.steps++;
          conv.tokens += (r.usage?.promptTokens ?? 0) + (r.usage?.completionTokens ?? 0);
        }
      } else if (r.kind === 'tool_result') answer(r.callId, r.name, r.content, r.isError);
      else if (r.kind === 'ask_user' || r.kind === 'sub_input') conv.waiting = r;
    }
  }
  // Calls of an earlier task that never got a result: the model must not see them dangling.
  if (!own) for (const c of open) answer(c.id, c.name, JSON.stringify({ status: 'abandoned' }), true);
  else conv.pendingCalls = open.filter((c) => !(conv.waiting?.kind === 'ask_user' && conv.waiting.callIds.includes(c.id)) && !(conv.waiting?.kind === 'sub_input' && conv.waiting.callId === c.id));
}
