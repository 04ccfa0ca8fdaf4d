/**
 * A small A2A client for the distributed suites: JSON-RPC calls that throw on A2A errors, and a live
 * SSE reader (events arrive while the stream is open, unlike test/support/server.ts readSse, which
 * waits for the end).
 */
import type { Replica } from '../support/cluster.js';
import { waitFor } from '../support/cluster.js';

export const TERMINAL = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED']);

export const userMessage = (text: string, extra: Record<string, unknown> = {}) => ({
  messageId: `m-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`,
  role: 'ROLE_USER',
  parts: [{ text }],
  ...extra,
});

export class RpcError extends Error {
  constructor(
    readonly method: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`${method}: HTTP ${status} ${JSON.stringify(body).slice(0, 500)}`);
  }
}

export interface RpcAnswer {
  status: number;
  body: any;
}

/** One JSON-RPC call; resolves with the raw answer (any status). */
export async function rpcRaw(r: Replica, agentId: string, method: string, params: unknown, timeoutMs = 15_000): Promise<RpcAnswer> {
  const res = await fetch(r.url(agentId), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text for the failure message
  }
  return { status: res.status, body };
}

/** One JSON-RPC call; returns `result` or throws RpcError. */
export async function call(r: Replica, agentId: string, method: string, params: unknown): Promise<any> {
  const a = await rpcRaw(r, agentId, method, params);
  if (a.status !== 200 || !a.body || typeof a.body !== 'object' || !('result' in a.body)) throw new RpcError(`${method} on ${r.id}`, a.status, a.body);
  return a.body.result;
}

/** SendMessage that returns at once (the task keeps running on the receiving replica). */
export async function sendNonBlocking(r: Replica, agentId: string, text: string, extra: Record<string, unknown> = {}): Promise<any> {
  const result = await call(r, agentId, 'SendMessage', { message: userMessage(text, extra), configuration: { returnImmediately: true } });
  if (!result.task) throw new Error(`SendMessage on ${r.id} answered without a task: ${JSON.stringify(result).slice(0, 300)}`);
  return result.task;
}

export async function sendBlocking(r: Replica, agentId: string, text: string, extra: Record<string, unknown> = {}): Promise<any> {
  const result = await call(r, agentId, 'SendMessage', { message: userMessage(text, extra) });
  if (!result.task) throw new Error(`SendMessage on ${r.id} answered without a task: ${JSON.stringify(result).slice(0, 300)}`);
  return result.task;
}

export const getTask = (r: Replica, agentId: string, id: string): Promise<any> => call(r, agentId, 'GetTask', { id });

/** Polls GetTask on `r` until the task is in `state`. */
export function waitForState(r: Replica, agentId: string, id: string, state: string, timeoutMs: number): Promise<any> {
  let last = 'no answer';
  return waitFor(
    async () => {
      const t = await getTask(r, agentId, id);
      last = t.status?.state;
      return t.status?.state === state ? t : undefined;
    },
    { timeoutMs, intervalMs: 50, what: `task ${id} to be ${state} on replica ${r.id}`, detail: () => `last state: ${last}` },
  );
}

// ---------------------------------------------------------------- SSE

export interface SseEvent {
  /** the `id:` line: the task event seq */
  id?: number;
  event?: string;
  data: any;
  /** Date.now() when the event was parsed */
  at: number;
}

export interface LiveStream {
  status: number;
  events: SseEvent[];
  /** resolves when the server ends the stream or the client closes it */
  done: Promise<void>;
  /** whether the server ended the stream (rather than `close()` or a network error) */
  endedByServer: () => boolean;
  close(): void;
  /** resolves once an event satisfying `pred` has arrived */
  waitFor(pred: (e: SseEvent) => boolean, timeoutMs: number, what: string): Promise<SseEvent>;
}

/** Opens an SSE request and parses events as they arrive. Throws when the answer is not a 200 event stream. */
export async function openSse(url: string, init: RequestInit & { headers?: Record<string, string> }): Promise<LiveStream> {
  const ac = new AbortController();
  const res = await fetch(url, { ...init, signal: ac.signal });
  if (res.status !== 200 || !res.headers.get('content-type')?.startsWith('text/event-stream')) {
    const text = await res.text().catch(() => '');
    throw new Error(`${init.method ?? 'GET'} ${url}: expected an event stream, got HTTP ${res.status} ${res.headers.get('content-type')} ${text.slice(0, 500)}`);
  }
  const events: SseEvent[] = [];
  let serverEnded = false;
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of waiters) w();
  };
  const done = (async () => {
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for (;;) {
        const { value, done: eof } = await reader.read();
        if (eof) {
          serverEnded = true;
          break;
        }
        buf += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          const ev = parseBlock(block);
          if (ev) events.push(ev);
        }
        notify();
      }
    } catch {
      // closed by us, or the connection died: `endedByServer()` tells which
    } finally {
      notify();
    }
  })();
  let finished = false;
  void done.then(() => (finished = true));
  return {
    status: res.status,
    events,
    done,
    endedByServer: () => serverEnded,
    close: () => ac.abort(),
    async waitFor(pred, timeoutMs, what) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const hit = events.find(pred);
        if (hit) return hit;
        if (finished) throw new Error(`stream ended before ${what}; got ${describe(events)}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; got ${describe(events)}`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(finish, Math.min(left, 250));
          function finish() {
            clearTimeout(t);
            waiters.delete(finish);
            resolve();
          }
          waiters.add(finish);
        });
      }
    },
  };
}

function parseBlock(block: string): SseEvent | undefined {
  const ev: SseEvent = { data: undefined, at: Date.now() };
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (!line || line.startsWith(':')) continue;
    if (line.startsWith('id:')) ev.id = Number(line.slice(3).trim());
    else if (line.startsWith('event:')) ev.event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  if (!data.length) return undefined;
  ev.data = JSON.parse(data.join('\n'));
  return ev;
}

export function describe(events: SseEvent[]): string {
  return JSON.stringify(events.map((e) => [e.id, e.event ?? kindOf(e.data)])).slice(0, 1_500);
}

export function kindOf(data: any): string {
  if (data?.task) return `task:${data.task.status?.state}`;
  if (data?.statusUpdate) return `status:${data.statusUpdate.status?.state}`;
  if (data?.artifactUpdate) return `artifact:${JSON.stringify(data.artifactUpdate.artifact?.parts?.map((p: any) => p.text))}`;
  if (data?.message) return 'message';
  if (data?.error) return `error:${data.error.message ?? ''}`;
  return JSON.stringify(data).slice(0, 80);
}

/** SubscribeToTask over HTTP+JSON (`GET …/tasks/{id}:subscribe`), optionally resuming after `lastEventId`. */
export function subscribe(r: Replica, agentId: string, taskId: string, lastEventId?: number): Promise<LiveStream> {
  const headers: Record<string, string> = { 'a2a-version': '1.0', accept: 'text/event-stream' };
  if (lastEventId !== undefined) headers['last-event-id'] = String(lastEventId);
  return openSse(`${r.url(agentId)}/tasks/${encodeURIComponent(taskId)}:subscribe`, { method: 'GET', headers });
}

/** SendStreamingMessage over HTTP+JSON (`POST …/message:stream`). */
export function sendStreaming(r: Replica, agentId: string, message: Record<string, unknown>): Promise<LiveStream> {
  return openSse(`${r.url(agentId)}/message:stream`, {
    method: 'POST',
    headers: { 'a2a-version': '1.0', 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ message }),
  });
}

/**
 * The task's whole event log as a client can read it from a replica: SubscribeToTask with
 * Last-Event-ID 0 on a terminal task replays the stream events from PostgreSQL. A replay ends at an
 * interrupted state (INPUT_REQUIRED) as a live stream does, so it resumes from there until the end.
 */
export async function eventLog(r: Replica, agentId: string, taskId: string, timeoutMs = 10_000): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for (;;) {
    const after = events.length ? events[events.length - 1]!.id! : 0;
    const s = await subscribe(r, agentId, taskId, after);
    const timer = setTimeout(() => s.close(), timeoutMs);
    await s.done;
    clearTimeout(timer);
    if (!s.endedByServer()) throw new Error(`event log replay of ${taskId} on ${r.id} did not end within ${timeoutMs} ms: ${describe(s.events)}`);
    if (!s.events.length) throw new Error(`event log replay of ${taskId} on ${r.id} after ${after} was empty`);
    events.push(...s.events);
    const state = stateOf(events[events.length - 1]!);
    if (state && TERMINAL.has(state)) return events;
  }
}

export const stateOf = (e: SseEvent): string | undefined => e.data?.statusUpdate?.status?.state ?? e.data?.task?.status?.state;

/** Checks that a stream's ids strictly increase; returns a problem description or undefined. */
export function orderProblem(events: SseEvent[]): string | undefined {
  for (let i = 1; i < events.length; i++) {
    const a = events[i - 1]!.id;
    const b = events[i]!.id;
    if (a === undefined || b === undefined || !(b > a)) return `ids not strictly increasing at ${i}: ${a} then ${b} in ${describe(events)}`;
  }
  return undefined;
}

/** id + payload: what two streams of the same task must agree on. */
export const comparable = (events: SseEvent[]) => events.map((e) => ({ id: e.id, event: e.event, data: e.data }));
