/**
 * The deprecated HTTP+SSE transport of MCP 2024-11-05, served beside Streamable HTTP as the
 * specification's "Backwards Compatibility" section (basic/transports, 2025-03-26 onwards) asks of
 * servers that want older clients: the old SSE endpoint and the old POST endpoint are hosted next
 * to the MCP endpoint. Here both are the MCP endpoint's own URL, the combination the section allows:
 *
 *   GET  /mcp   (Accept: text/event-stream, no Mcp-Session-Id, no MCP-Protocol-Version)
 *        → an SSE stream whose first event is `endpoint`, naming `mcp?sessionId=…`
 *   POST /mcp?sessionId=…  → each JSON-RPC message, run through the same admission and dispatch
 *        as a POST to /mcp; its answers are sent on the stream as `message` events; the POST
 *        itself is answered 202 once they have been (so its usage record is the call's, as on /mcp)
 *
 * A client of the old transport opens the GET first, before any exchange, so it sends neither of
 * the two headers a 2025-era client's standalone GET carries after `initialize`; a 2025-03-26
 * client that omits both too gets the same list-change notifications plus an `endpoint` event,
 * which SDK clients ignore (they read only `message` events).
 *
 * A session is the stream: owned by the subject that opened it and the scope it was opened on
 * (`/mcp` or one agent's), gone when the stream closes, in-process (behind a load balancer the
 * POSTs must reach the replica holding the stream: sticky routing). `notifications/cancelled`
 * stops the named request, as closing its POST would on /mcp.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import type { UsageDraft } from '../../../core/usage/usage-draft.js';
import type { Answer } from '../answer.js';
import { noteMcpError } from '../mcp-usage.js';
import { MCP_CODE } from '../mcp-errors.js';

const NOTIFICATION_OF: Record<ServerEvent['kind'], string> = {
  tools_list_changed: 'notifications/tools/list_changed',
  prompts_list_changed: 'notifications/prompts/list_changed',
  resources_list_changed: 'notifications/resources/list_changed',
  resource_updated: 'notifications/resources/updated',
};

interface SseSession {
  id: string;
  scope: string;
  subject: string;
  res: ServerResponse;
  /** requests being answered, by JSON-RPC id, for `notifications/cancelled` */
  inFlight: Map<string | number, AbortController>;
  /** aborted when the stream closes: every request of the session stops */
  closed: AbortController;
  opened: number;
}

export interface SseTransportOptions {
  keepAliveMs: number;
  /** streams open at most; the oldest is closed to make room */
  max: number;
  log: { debug(obj: object, msg?: string): void };
}

/** What runs one POSTed body: the MCP face's dispatch with this POST's caller and headers. */
export type Dispatch = (body: string, signal: AbortSignal) => Promise<Answer>;

/** The session id a POST names in its query (`?sessionId=`), the old transport's only handle. */
export function sessionIdOfQuery(url: string | undefined): string | undefined {
  const q = url?.indexOf('?') ?? -1;
  if (q < 0) return undefined;
  return new URLSearchParams(url!.slice(q + 1)).get('sessionId') ?? undefined;
}

export class SseTransport {
  private readonly sessions = new Map<string, SseSession>();
  private readonly unsubscribe: () => void;

  constructor(
    bus: Pick<ServerEventBus, 'subscribe'>,
    private readonly o: SseTransportOptions,
  ) {
    this.unsubscribe = bus.subscribe((e) => {
      const params = e.kind === 'resource_updated' ? { uri: e.uri } : undefined;
      const note = { jsonrpc: '2.0', method: NOTIFICATION_OF[e.kind], ...(params ? { params } : {}) };
      for (const s of this.sessions.values()) this.send(s, note);
    });
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Opens the stream of a GET the caller was admitted to, and announces the POST endpoint. */
  open(req: IncomingMessage, res: ServerResponse, scope: string, subject: string): void {
    while (this.sessions.size >= this.o.max) this.closeOldest();
    const id = randomUUID();
    const s: SseSession = { id, scope, subject, res, inFlight: new Map(), closed: new AbortController(), opened: Date.now() };
    this.sessions.set(id, s);
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    // Relative to the stream's own URL, so a path prefix of a reverse proxy is kept (clients
    // resolve it against the SSE URL and require the same origin).
    res.write(`event: endpoint\ndata: ${endpointReference(req.url ?? '/mcp', id)}\n\n`);
    const timer = this.o.keepAliveMs > 0 ? setInterval(() => res.write(': keep-alive\n\n'), this.o.keepAliveMs) : undefined;
    timer?.unref();
    const end = () => {
      if (timer) clearInterval(timer);
      if (this.sessions.get(id) !== s) return;
      this.sessions.delete(id);
      s.closed.abort();
      this.o.log.debug({ session: id }, 'mcp: HTTP+SSE (2024-11-05) stream closed');
    };
    req.on('close', end);
    res.on('close', end);
    this.o.log.debug({ session: id, scope }, 'mcp: HTTP+SSE (2024-11-05) stream opened');
  }

  /**
   * Whether `sessionId` is an open stream of this caller on this scope; another caller's session
   * is "not found", so its id is no handle for anyone else.
   */
  owns(sessionId: string, scope: string, subject: string): boolean {
    const s = this.sessions.get(sessionId);
    return !!s && s.scope === scope && s.subject === subject;
  }

  /**
   * Runs a POSTed body and sends its answers on the session's stream. Resolves when they have
   * been sent (or the stream is gone); the caller then answers the POST 202.
   */
  async post(sessionId: string, body: string, dispatch: Dispatch, usage: UsageDraft | undefined): Promise<void> {
    const s = this.sessions.get(sessionId);
    if (!s) return;
    const parsed = parseQuietly(body);
    for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
      const cancelled = cancelledRequestOf(m);
      if (cancelled !== undefined) s.inFlight.get(cancelled)?.abort();
    }
    const id = requestIdOf(parsed);
    const call = new AbortController();
    const stop = () => call.abort();
    s.closed.signal.addEventListener('abort', stop, { once: true });
    if (id !== undefined) s.inFlight.set(id, call);
    try {
      const answer = await dispatch(body, call.signal);
      for await (const message of messagesOf(answer, id, call.signal)) {
        const code = (message as { error?: { code?: unknown } }).error?.code;
        if (usage && typeof code === 'number') noteMcpError(usage, code);
        this.send(s, message);
      }
    } finally {
      s.closed.signal.removeEventListener('abort', stop);
      if (id !== undefined && s.inFlight.get(id) === call) s.inFlight.delete(id);
    }
  }

  close(): void {
    this.unsubscribe();
    for (const s of [...this.sessions.values()]) s.res.end();
    this.sessions.clear();
  }

  private send(s: SseSession, message: unknown): void {
    if (s.res.writableEnded || s.res.destroyed) return;
    s.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  private closeOldest(): void {
    let oldest: SseSession | undefined;
    for (const s of this.sessions.values()) if (!oldest || s.opened < oldest.opened) oldest = s;
    if (!oldest) return;
    this.sessions.delete(oldest.id);
    oldest.closed.abort();
    oldest.res.end();
    this.o.log.debug({ session: oldest.id, reason: 'too many streams' }, 'mcp: HTTP+SSE (2024-11-05) stream closed');
  }
}

/** `mcp?sessionId=…` for a stream on `…/mcp`; `?sessionId=…` for one on a path ending in `/`. */
function endpointReference(url: string, sessionId: string): string {
  const path = url.split('?')[0]!;
  const last = path.slice(path.lastIndexOf('/') + 1);
  return `${encodeURI(last)}?sessionId=${sessionId}`;
}

function parseQuietly(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** The id of a single JSON-RPC request, which an answer without one (an edge refusal) is for. */
function requestIdOf(m: unknown): string | number | undefined {
  if (!m || typeof m !== 'object' || Array.isArray(m) || !('method' in m)) return undefined;
  const id = (m as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

function cancelledRequestOf(m: unknown): string | number | undefined {
  if (!m || typeof m !== 'object' || (m as { method?: unknown }).method !== 'notifications/cancelled') return undefined;
  const id = (m as { params?: { requestId?: unknown } }).params?.requestId;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/**
 * The JSON-RPC messages of an answer, as they come: a JSON body (one message or a batch), each
 * `data` of a streamed (SSE) body, or an edge refusal, given the request's id so that the client
 * waiting for it hears the error instead of waiting forever.
 */
async function* messagesOf(a: Answer, requestId: string | number | undefined, signal: AbortSignal): AsyncGenerator<unknown> {
  if (a.kind === 'error') {
    yield { jsonrpc: '2.0', id: requestId ?? null, error: { code: a.code, message: a.message } };
    return;
  }
  if (a.kind === 'json') {
    yield* withId(a.body, requestId);
    return;
  }
  const type = a.response.headers.get('content-type') ?? '';
  if (!type.startsWith('text/event-stream')) {
    const text = await a.response.text();
    if (text.trim() === '') return; // 202 to a notification or a response
    const parsed = parseQuietly(text);
    if (parsed === undefined) {
      if (requestId !== undefined) yield { jsonrpc: '2.0', id: requestId, error: { code: MCP_CODE.InternalError, message: `The server answered HTTP ${a.response.status}` } };
      return;
    }
    yield* withId(parsed, requestId);
    return;
  }
  if (!a.response.body) return;
  const reader = a.response.body.getReader();
  const stop = () => void reader.cancel().catch(() => {});
  signal.addEventListener('abort', stop, { once: true });
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const data = buffer
          .slice(0, end)
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(l.startsWith('data: ') ? 6 : 5))
          .join('\n');
        buffer = buffer.slice(end + 2);
        const message = data ? parseQuietly(data) : undefined;
        if (message !== undefined) yield message;
        end = buffer.indexOf('\n\n');
      }
    }
  } catch {
    // the call was stopped (cancelled, or the stream closed)
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

function* withId(body: unknown, requestId: string | number | undefined): Generator<unknown> {
  if (Array.isArray(body)) return yield* body;
  const m = body as { id?: unknown; error?: unknown } | null;
  if (m && typeof m === 'object' && m.error !== undefined && (m.id === null || m.id === undefined) && requestId !== undefined) yield { ...m, id: requestId };
  else yield body;
}
