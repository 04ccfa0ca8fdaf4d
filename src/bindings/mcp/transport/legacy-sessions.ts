/**
 * Sessionful legacy serving, only for 2025-era clients that declare `elicitation` at
 * `initialize`. Elicitation in that era is a server→client request whose answer arrives in
 * another POST, and the SDK's stateless legacy path cannot receive it (no instance outlives the
 * POST, and the client's capabilities are unknown after `initialize`). So such a client gets an
 * `Mcp-Session-Id`, and its requests are served by one server instance and SDK transport; the
 * SDK's legacy input-required shim then turns the tool's `input_required` return into a real
 * `elicitation/create` on the call's stream and re-enters the tool with the answer.
 *
 * Every other legacy client stays stateless. Sessions are in-process (a retry must reach the
 * same replica: sticky routing), owned by the subject that opened them, closed on DELETE, after
 * `idleMs` without a request, or least recently used first when `max` are open.
 */
import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport, type AuthInfo, type McpRequestContext, type McpServer } from '@modelcontextprotocol/server';

interface Session {
  id: string;
  scope: string;
  subject: string;
  server: McpServer;
  transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
  /** the agents changed since this session's instance was built: closed at its next request */
  retired: boolean;
}

export interface LegacySessionsOptions {
  idleMs: number;
  max: number;
  keepAliveMs: number;
  maxRequestBodySize: number;
  log: { debug(obj: object, msg?: string): void };
}

const MODERN_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

/** A 2025-era `initialize` whose client can answer elicitation requests. */
export function isElicitingLegacyInitialize(body: unknown): boolean {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
  const m = body as { method?: unknown; params?: { capabilities?: { elicitation?: unknown }; _meta?: Record<string, unknown> } };
  if (m.method !== 'initialize' || m.params?._meta?.[MODERN_VERSION_KEY] !== undefined) return false;
  const e = m.params?.capabilities?.elicitation;
  return typeof e === 'object' && e !== null;
}

export class LegacySessions {
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly o: LegacySessionsOptions) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(60_000, o.idleMs)).unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Opens a session for an eliciting `initialize` and serves it. */
  async open(scope: string, factory: (ctx: McpRequestContext) => McpServer, request: Request, authInfo: AuthInfo, subject: string, parsedBody: unknown): Promise<Response> {
    while (this.sessions.size >= this.o.max) this.closeLeastRecent();
    const server = factory({ era: 'legacy', authInfo, requestInfo: request });
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      keepAliveMs: this.o.keepAliveMs,
      maxRequestBodySize: this.o.maxRequestBodySize,
      onsessioninitialized: (id) => {
        this.sessions.set(id, { id, scope, subject, server, transport, lastSeen: Date.now(), retired: false });
        this.o.log.debug({ session: id, scope }, 'mcp: legacy session opened (client takes elicitation)');
      },
      onsessionclosed: (id) => void this.drop(id),
    });
    await server.connect(transport);
    const res = await transport.handleRequest(request, { authInfo, parsedBody });
    if (!transport.sessionId) await server.close().catch(() => {});
    return res;
  }

  /** Serves a request naming a session; undefined when there is no such session for this caller. */
  async serve(sessionId: string, scope: string, request: Request, authInfo: AuthInfo, subject: string, parsedBody: unknown): Promise<Response | undefined> {
    const s = this.sessions.get(sessionId);
    // Another caller's session is "not found": its id must not become a handle for someone else.
    if (!s || s.scope !== scope || s.subject !== subject) return undefined;
    if (s.retired && isRequest(parsedBody)) {
      this.drop(s.id, 'agents changed');
      return undefined;
    }
    s.lastSeen = Date.now();
    const res = await s.transport.handleRequest(request, { authInfo, ...(parsedBody !== undefined ? { parsedBody } : {}) });
    s.lastSeen = Date.now();
    return res;
  }

  /**
   * The agents changed: each session's instance lists the old tools and resources, so the client
   * is told (`notifications/tools/list_changed`, `notifications/resources/list_changed`) and the
   * session is retired: its next request gets 404 and, as the 2025 transports require, the client
   * initializes again and lists the new set. Answers (elicitation results) and notifications for
   * calls still in progress are served until then, so no call is cut short.
   */
  listChanged(): void {
    for (const s of this.sessions.values()) {
      if (s.retired) continue;
      s.retired = true;
      void s.server.server.sendToolListChanged().catch(() => {});
      void s.server.server.sendResourceListChanged().catch(() => {});
    }
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const id of [...this.sessions.keys()]) this.drop(id);
  }

  private sweep(): void {
    const cutoff = Date.now() - this.o.idleMs;
    for (const s of [...this.sessions.values()]) if (s.lastSeen < cutoff) this.drop(s.id, 'idle');
  }

  private closeLeastRecent(): void {
    let oldest: Session | undefined;
    for (const s of this.sessions.values()) if (!oldest || s.lastSeen < oldest.lastSeen) oldest = s;
    if (oldest) this.drop(oldest.id, 'too many sessions');
  }

  private drop(id: string, reason?: string): void {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    if (reason) this.o.log.debug({ session: id, reason }, 'mcp: legacy session closed');
    void s.server.close().catch(() => {});
  }
}

/** A JSON-RPC request (not a response or notification), the kind that starts new work. */
function isRequest(body: unknown): boolean {
  const one = (m: unknown) => !!m && typeof m === 'object' && 'method' in m && 'id' in m;
  return Array.isArray(body) ? body.some(one) : one(body);
}
