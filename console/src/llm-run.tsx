/**
 * An LLM agent's run on its task page: the timeline of its steps, read from the step records its
 * status messages carry (data parts of STEP_MEDIA_TYPE, src/agents/llm/run-steps.ts). Each model
 * call with its tokens and latency, each tool call with its arguments and a link to the sub-task
 * it made, each result, and each question put to the user. Tasks of other agents have no records,
 * and no timeline.
 */
import type { Part } from './a2a-stream.js';
import type { A2ATask, TaskMessage } from './a2a-task.js';
import { taskHref } from './task-href.js';

export const STEP_MEDIA_TYPE = 'application/vnd.agentport.llm-step+json';

interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** A step record as the run writes it; fields are checked where shown, the task being untrusted input. */
type StepRecord =
  | { kind: 'model'; step: number; model?: string; text: string; toolCalls: ToolCall[]; finishReason: string; usage: { promptTokens: number; completionTokens: number; cachedTokens?: number }; latencyMs: number }
  | { kind: 'tool_call'; callId: string; name: string; agentId: string; skillId: string; arguments: Record<string, unknown>; taskId?: string }
  | { kind: 'tool_result'; callId: string; name: string; agentId: string; skillId: string; status: string; taskId?: string; content: string; isError: boolean }
  | { kind: 'ask_user'; callIds: string[]; question: string }
  | { kind: 'sub_input'; callId: string; name: string; agentId: string; skillId: string; taskId: string; state: string; question: string };

const KINDS = new Set(['model', 'tool_call', 'tool_result', 'ask_user', 'sub_input']);

function recordOf(p: Part): StepRecord | undefined {
  if (p.mediaType !== STEP_MEDIA_TYPE || typeof p.data !== 'object' || p.data === null || Array.isArray(p.data)) return undefined;
  const kind = (p.data as { kind?: unknown }).kind;
  return typeof kind === 'string' && KINDS.has(kind) ? (p.data as StepRecord) : undefined;
}

/** The task's step records in order: its history, then its current status message when history does not hold it yet. */
export function stepRecords(task: A2ATask): StepRecord[] {
  const messages: TaskMessage[] = [...(task.history ?? [])];
  const current = task.status?.message;
  if (current && !messages.some((m) => m.messageId !== undefined && m.messageId === current.messageId)) messages.push(current);
  return messages.filter((m) => m.role !== 'ROLE_USER').flatMap((m) => (m.parts ?? []).flatMap((p) => recordOf(p) ?? []));
}

const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) ? n.toLocaleString('en-US') : '?');
const json = (v: unknown) => JSON.stringify(v, null, 2);

/** What a tool result carried for the model: the `data` of its wrapper, else the text as it is. */
function resultData(content: string): string {
  try {
    const wrapped = JSON.parse(content) as { data?: unknown };
    if (wrapped && typeof wrapped === 'object' && 'data' in wrapped) return typeof wrapped.data === 'string' ? wrapped.data : json(wrapped.data);
  } catch {
    // not the wrapper: shown as it is
  }
  return content;
}

function SubTask({ agentId, taskId }: { agentId: string; taskId: string | undefined }) {
  if (!taskId) return null;
  return (
    <a href={taskHref(agentId, taskId)} class="run-subtask">
      Sub-task {taskId}
    </a>
  );
}

function Step({ r }: { r: StepRecord }) {
  switch (r.kind) {
    case 'model': {
      const cached = r.usage?.cachedTokens ? ` (${count(r.usage.cachedTokens)} cached)` : '';
      return (
        <>
          <h3>
            Model call {r.step}
            {r.model ? `: ${r.model}` : ''}
          </h3>
          <p class="run-facts">
            {count(r.usage?.promptTokens)} prompt tokens{cached}, {count(r.usage?.completionTokens)} completion tokens · {count(r.latencyMs)} ms · {r.finishReason}
          </p>
          {r.text && <pre class="part-text">{r.text}</pre>}
          {(r.toolCalls ?? []).length > 0 && <p class="muted">Asked for: {r.toolCalls.map((c) => c.name).join(', ')}</p>}
        </>
      );
    }
    case 'tool_call':
      return (
        <>
          <h3>
            Tool call {r.name}: {r.agentId} ({r.skillId})
          </h3>
          <pre class="part-data run-arguments">{json(r.arguments)}</pre>
          <SubTask agentId={r.agentId} taskId={r.taskId} />
        </>
      );
    case 'tool_result':
      return (
        <>
          <h3>
            Result of {r.name}: {r.status}
          </h3>
          <pre class={r.isError ? 'part-text run-error' : 'part-text'}>{resultData(r.content)}</pre>
          <SubTask agentId={r.agentId} taskId={r.taskId} />
        </>
      );
    case 'ask_user':
      return (
        <>
          <h3>Question to the user</h3>
          <pre class="part-text">{r.question}</pre>
        </>
      );
    case 'sub_input':
      return (
        <>
          <h3>
            {r.agentId} asks the user ({r.state.replace('TASK_STATE_', '').toLowerCase().replace(/_/g, '-')})
          </h3>
          <pre class="part-text">{r.question}</pre>
          <SubTask agentId={r.agentId} taskId={r.taskId} />
        </>
      );
  }
}

export function RunTimeline({ task }: { task: A2ATask }) {
  const records = stepRecords(task);
  if (records.length === 0) return null;
  const models = records.filter((r) => r.kind === 'model');
  const tokens = models.reduce((n, r) => n + (r.usage?.promptTokens ?? 0) + (r.usage?.completionTokens ?? 0), 0);
  return (
    <section aria-labelledby="run-title">
      <h2 id="run-title">Run</h2>
      <p class="muted" id="run-summary">
        {models.length} model call{models.length === 1 ? '' : 's'}, {records.filter((r) => r.kind === 'tool_call').length} tool calls, {count(tokens)} tokens
      </p>
      <ol class="run-timeline">
        {records.map((r, i) => (
          <li key={`${i}-${r.kind}`} class={`run-step run-${r.kind.replace('_', '-')}`}>
            <Step r={r} />
          </li>
        ))}
      </ol>
    </section>
  );
}
