/**
 * A2A results as MCP tool results: artifacts become content (text; images for image parts;
 * embedded resources for other files; resource links for file URLs), DataParts become
 * `structuredContent` plus the same JSON as text for clients that read only text. Interrupted and
 * failed tasks become `isError` results that say what happened and how to continue.
 */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/server';
import type { JsonValue, Message, Part, Task } from '../../../protocol/a2a/types.js';

type Content = ContentBlock;

/**
 * Content blocks and data values of parts. `uriBase` names embedded files (`…/{index}`); a
 * function is asked only when a part is a file (most results are text: no URI is composed).
 */
export function partsToContent(parts: readonly Part[], uriBase: string | (() => string)): { content: Content[]; data: JsonValue[] } {
  const content: Content[] = [];
  const data: JsonValue[] = [];
  parts.forEach((p, i) => {
    if (p.text !== undefined) content.push({ type: 'text', text: p.text });
    else if (p.data !== undefined) data.push(p.data);
    else if (p.raw !== undefined) {
      const mimeType = p.mediaType ?? 'application/octet-stream';
      if (mimeType.startsWith('image/')) content.push({ type: 'image', data: p.raw, mimeType });
      else if (mimeType.startsWith('audio/')) content.push({ type: 'audio', data: p.raw, mimeType });
      else content.push({ type: 'resource', resource: { uri: `${typeof uriBase === 'string' ? uriBase : uriBase()}/${i}${p.filename ? `/${encodeURIComponent(p.filename)}` : ''}`, mimeType, blob: p.raw } });
    } else if (p.url !== undefined) {
      content.push({ type: 'resource_link', uri: p.url, name: p.filename ?? p.url, ...(p.mediaType ? { mimeType: p.mediaType } : {}) });
    }
  });
  return { content, data };
}

export function partsText(parts: readonly Part[] | undefined): string {
  return (parts ?? [])
    .filter((p) => p.text !== undefined)
    .map((p) => p.text)
    .join('\n')
    .trim();
}

/** `structuredContent` must be an object (2025 revisions); one object DataPart is used as is. */
function structured(data: JsonValue[]): Record<string, unknown> | undefined {
  if (data.length === 0) return undefined;
  if (data.length === 1 && data[0] && typeof data[0] === 'object' && !Array.isArray(data[0])) return data[0] as Record<string, unknown>;
  return { data };
}

function withData(content: Content[], data: JsonValue[]): Pick<CallToolResult, 'content' | 'structuredContent'> {
  const sc = structured(data);
  if (!sc) return { content };
  return { content: [...content, { type: 'text', text: JSON.stringify(sc) }], structuredContent: sc };
}

const taskMeta = (task: Task) => ({ 'agentport/taskId': task.id, 'agentport/contextId': task.contextId, 'agentport/state': task.status.state });

/** The result of a tool call whose message produced a task. */
export function taskToToolResult(task: Task, toolName: string): CallToolResult {
  const state = task.status.state;
  const _meta = taskMeta(task);
  if (state === 'TASK_STATE_COMPLETED') {
    const content: Content[] = [];
    const data: JsonValue[] = [];
    for (const a of task.artifacts ?? []) {
      const r = partsToContent(a.parts, () => `agentport://tasks/${task.id}/artifacts/${encodeURIComponent(a.artifactId)}`);
      content.push(...r.content);
      data.push(...r.data);
    }
    if (content.length === 0 && data.length === 0 && task.status.message) {
      const r = partsToContent(task.status.message.parts, `agentport://tasks/${task.id}/status`);
      content.push(...r.content);
      data.push(...r.data);
    }
    const out = withData(content, data);
    if (out.content.length === 0) out.content = [{ type: 'text', text: 'The task completed without output.' }];
    return { ...out, _meta };
  }
  // Only the other states say what the status message says.
  const statusText = partsText(task.status.message?.parts);
  switch (state) {
    case 'TASK_STATE_INPUT_REQUIRED':
    case 'TASK_STATE_AUTH_REQUIRED': {
      const what = state === 'TASK_STATE_INPUT_REQUIRED' ? 'needs more input' : 'needs authorization';
      const text = `The agent ${what}${statusText ? `: ${statusText}` : '.'}\n\n` + `To continue, call ${toolName} again with {"taskId": "${task.id}", "message": "<your answer>"}.`;
      const sc = { taskId: task.id, contextId: task.contextId, state, ...(statusText ? { question: statusText } : {}) };
      return { isError: true, content: [{ type: 'text', text }], structuredContent: sc, _meta };
    }
    case 'TASK_STATE_FAILED':
    case 'TASK_STATE_REJECTED': {
      const what = state === 'TASK_STATE_FAILED' ? 'failed' : 'was rejected';
      const data = (task.status.message?.parts ?? []).filter((p) => p.data !== undefined).map((p) => p.data!);
      return { isError: true, ...withData([{ type: 'text', text: statusText || `The task ${what}.` }], data), _meta };
    }
    case 'TASK_STATE_CANCELED':
      return { isError: true, content: [{ type: 'text', text: statusText || 'The task was canceled.' }], _meta };
    default:
      // SUBMITTED/WORKING: the stream ended before the task did (server shutting down).
      return {
        isError: true,
        content: [{ type: 'text', text: `The task is still ${state.replace('TASK_STATE_', '').toLowerCase()}; its id is ${task.id}.` }],
        structuredContent: { taskId: task.id, contextId: task.contextId, state },
        _meta,
      };
  }
}

/** The result of a tool call the agent answered with a direct message (no task). */
export function messageToToolResult(message: Message): CallToolResult {
  const r = partsToContent(message.parts, `agentport://messages/${encodeURIComponent(message.messageId)}`);
  const out = withData(r.content, r.data);
  if (out.content.length === 0) out.content = [{ type: 'text', text: '' }];
  return out;
}

export function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}
