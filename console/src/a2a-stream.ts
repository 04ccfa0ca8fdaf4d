/**
 * The console's A2A client: `SendStreamingMessage` and `SubscribeToTask` over JSON-RPC (A2A v1.0),
 * their Server-Sent Events read as they arrive, `GetTask` and `CancelTask`. Calls go through the console's session (cookie and
 * CSRF header), to the same agent URL any A2A client uses.
 */
import { call, serverUrl } from './api.js';

export interface Part {
  text?: string;
  data?: unknown;
  url?: string;
  raw?: string;
  mediaType?: string;
  filename?: string;
}

export interface StreamEvent {
  task?: { id: string; contextId?: string; status?: { state?: string } };
  message?: { role?: string; parts?: Part[]; taskId?: string; contextId?: string };
  statusUpdate?: { taskId?: string; contextId?: string; status?: { state?: string; message?: { parts?: Part[] } } };
  artifactUpdate?: { taskId?: string; contextId?: string; artifact?: { artifactId?: string; name?: string; parts?: Part[] }; append?: boolean; lastChunk?: boolean };
}

let requestId = 0;

function rpcBody(method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id: ++requestId, method, params });
}

/** Sends a message of `parts` and calls `onEvent` with each event of the stream, then resolves at its end. */
export async function sendStreaming(agentId: string, message: { parts: Part[]; contextId?: string; taskId?: string }, onEvent: (e: StreamEvent, raw: string) => void, signal: AbortSignal): Promise<void> {
  const params = {
    message: {
      messageId: crypto.randomUUID(),
      role: 'ROLE_USER',
      parts: message.parts,
      ...(message.contextId ? { contextId: message.contextId } : {}),
      ...(message.taskId ? { taskId: message.taskId } : {}),
    },
  };
  await rpcStream(agentId, 'SendStreamingMessage', params, onEvent, signal);
}

/** Follows a task: its current state first, then each change, until it is terminal (SubscribeToTask). */
export async function subscribeToTask(agentId: string, taskId: string, onEvent: (e: StreamEvent, raw: string) => void, signal: AbortSignal): Promise<void> {
  await rpcStream(agentId, 'SubscribeToTask', { id: taskId }, onEvent, signal);
}

/** A JSON-RPC method answered with Server-Sent Events: `onEvent` per event, resolved at the stream's end. */
async function rpcStream(agentId: string, method: string, params: unknown, onEvent: (e: StreamEvent, raw: string) => void, signal: AbortSignal): Promise<void> {
  const res = await call(serverUrl(`a2a/${encodeURIComponent(agentId)}`), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', 'A2A-Version': '1.0' },
    body: rpcBody(method, params),
    signal,
  });
  if (!res.body) return;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += value;
    // Events end with a blank line; a data line holds one JSON-RPC response.
    let end = buffered.search(/\r?\n\r?\n/);
    while (end >= 0) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end).replace(/^\r?\n\r?\n/, '');
      const data = block
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      if (data) {
        const answer = JSON.parse(data) as { result?: StreamEvent; error?: { message?: string } };
        if (answer.error) throw new Error(answer.error.message ?? 'the agent answered with an error');
        if (answer.result) onEvent(answer.result, data);
      }
      end = buffered.search(/\r?\n\r?\n/);
    }
  }
}

/** One JSON-RPC call answered with JSON; a JSON-RPC error becomes a thrown Error. */
export async function rpcCall<T>(agentId: string, method: string, params: unknown): Promise<T> {
  const res = await call(serverUrl(`a2a/${encodeURIComponent(agentId)}`), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: rpcBody(method, params),
  });
  const answer = (await res.json()) as { result?: T; error?: { message?: string } };
  if (answer.error || answer.result === undefined) throw new Error(answer.error?.message ?? `${method} answered nothing`);
  return answer.result;
}

/** Cancels the task; the answer is the task as it now stands (CANCELED, or where it ended). */
export async function cancelTask(agentId: string, taskId: string): Promise<{ id: string; status?: { state?: string } }> {
  return rpcCall(agentId, 'CancelTask', { id: taskId });
}
