/**
 * One remote MCP server (Streamable HTTP, either era) as seen by the agent that fronts it: a lazily
 * (re)connected official SDK client, the tool list kept fresh (on `notifications/tools/list_changed`
 * and every `refreshIntervalMs`), and tool calls with a deadline and cancellation. Every request
 * goes through the SSRF-guarded fetch. A broken connection is dropped and rebuilt on next use, so a
 * remote that restarts is picked up without restarting Agentport.
 */
import { traceparentOf, tracingOn, type Context } from '../../observability/tracing/index.js';
import { Client, ProtocolError, SdkError, SdkErrorCode, SdkHttpError, StreamableHTTPClientTransport, type CallToolResult, type Implementation, type Tool } from '@modelcontextprotocol/client';
import type { McpRemoteConfig } from '../../config/config.js';
import { urlOriginAndPath } from '../../config/redact-url.js';
import { guardedFetch, SsrfGuard, SsrfRejectedError } from '../../net/index.js';
import { asCaller, asService, type McpCaller, type RequestAuthorization } from './remote-identity.js';

export interface RemoteLog {
  debug(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/** A failure with a message that may be shown to the A2A client (no addresses, no credentials). */
export class RemoteMcpError extends Error {
  constructor(
    message: string,
    /** whether the same call may succeed later (the remote is down or slow) */
    readonly transient: boolean,
    /** the remote's HTTP status when it refused the credentials (401, 403) */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'RemoteMcpError';
  }
}

const MODERN_VERSION = '2026-07-28';

export class RemoteMcpServer {
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private readonly fetch: ReturnType<typeof guardedFetch>;
  private refreshTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** the tools as last listed, by name */
  tools: ReadonlyMap<string, Tool> = new Map();
  /** what the card is built from, to tell a real change from a re-listing of the same tools */
  private toolsSignature = '[]';
  private readonly toolsListeners: Array<() => void> = [];
  serverInfo: Implementation | undefined;
  instructions: string | undefined;

  constructor(
    private readonly cfg: McpRemoteConfig,
    private readonly log: RemoteLog,
    private readonly version: string,
    /** the Authorization of each request (`auth: signed-identity`); absent: only the configured headers */
    private readonly authorization?: RequestAuthorization,
  ) {
    // http is allowed: the operator chose this URL; the guard is about where it may point.
    this.fetch = guardedFetch(new SsrfGuard({ allow: cfg.allowlist, allowHttp: true, label: 'remote MCP server URL' }));
  }

  /** Connects and lists the tools; throws RemoteMcpError when the remote cannot be reached. */
  async start(): Promise<void> {
    // The periodic refresh runs even when the first listing fails: it also brings back a remote
    // that was down when Agentport started.
    this.refreshTimer = setInterval(() => void this.refreshTools().catch((err: unknown) => this.log.debug({ err: describe(err) }, 'mcp remote: periodic tools/list failed')), this.cfg.refreshIntervalMs);
    this.refreshTimer.unref();
    await this.refreshTools();
  }

  async refreshTools(): Promise<void> {
    const client = await this.connection();
    try {
      const { tools } = await client.listTools(undefined, { timeout: this.cfg.connectTimeoutMs, cacheMode: 'bypass' });
      this.setTools(tools);
    } catch (err) {
      this.dropOnTransportFailure(client, err);
      throw toRemoteError(err, this.cfg);
    }
  }

  /**
   * Calls a tool. `signal` cancels it on the remote (legacy: `notifications/cancelled`; modern: the
   * request stream is closed). A session the remote forgot (it restarted) or a refused connection
   * means the call never ran: the connection is rebuilt and the call tried once more.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    opts: { signal: AbortSignal; onProgress?: (message: string | undefined) => void; trace?: Context | undefined; caller?: McpCaller | undefined },
  ): Promise<CallToolResult> {
    return asCaller(opts.caller, () => this.callToolAsCaller(name, args, opts));
  }

  private async callToolAsCaller(name: string, args: Record<string, unknown>, opts: { signal: AbortSignal; onProgress?: (message: string | undefined) => void; trace?: Context | undefined }): Promise<CallToolResult> {
    // MCP carries the caller's trace in `params._meta` (MCP 2026-07-28, OTel MCP conventions).
    const traceparent = traceparentOf(opts.trace);
    for (let attempt = 0; ; attempt++) {
      const client = await this.connection();
      try {
        const result = await client.callTool(
          { name, arguments: args, ...(traceparent ? { _meta: { traceparent } } : {}) },
          {
            signal: opts.signal,
            timeout: this.cfg.callTimeoutMs,
            resetTimeoutOnProgress: true,
            ...(opts.onProgress ? { onprogress: (p: { message?: string }) => opts.onProgress!(p.message) } : {}),
          },
        );
        return result as CallToolResult;
      } catch (err) {
        if (opts.signal.aborted) throw err;
        this.dropOnTransportFailure(client, err);
        if (attempt === 0 && neverReachedTheTool(err)) continue;
        throw toRemoteError(err, this.cfg);
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    const c = this.client;
    this.client = undefined;
    await c?.close().catch(() => {});
  }

  /** Calls `listener` after the listed tools changed (names, titles, descriptions or schemas). */
  onToolsChanged(listener: () => void): void {
    this.toolsListeners.push(listener);
  }

  private setTools(tools: Tool[]): void {
    this.tools = new Map(tools.map((t) => [t.name, t]));
    const signature = JSON.stringify(tools.map((t) => [t.name, t.title, t.description, t.annotations, t.inputSchema]));
    this.log.debug({ url: urlOriginAndPath(this.cfg.url), tools: tools.length }, 'mcp remote: tools listed');
    if (signature === this.toolsSignature) return;
    this.toolsSignature = signature;
    for (const l of this.toolsListeners) l();
  }

  private connection(): Promise<Client> {
    if (this.closed) return Promise.reject(new RemoteMcpError('The agent is shutting down.', true));
    if (this.client) return Promise.resolve(this.client);
    // The session (initialize, its streams, list refreshes) belongs to no caller, even when a call opens it.
    this.connecting ??= asService(() => this.connect()).finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async connect(): Promise<Client> {
    const mode = this.cfg.era === 'auto' ? 'auto' : this.cfg.era === 'modern' ? { pin: MODERN_VERSION } : 'legacy';
    const client = new Client(
      { name: 'agentport', version: this.version },
      {
        versionNegotiation: { mode },
        listChanged: {
          tools: {
            debounceMs: 100,
            onChanged: (error, tools) => {
              if (error || !tools) return this.log.debug({ err: error?.message }, 'mcp remote: refresh after tools/list_changed failed');
              this.setTools(tools);
            },
          },
        },
      },
    );
    const transport = new StreamableHTTPClientTransport(new URL(this.cfg.url), {
      fetch: async (url, init) => {
        const traced = tracingOn() ? withTraceparentOfMeta(init) : init;
        return this.fetch(url, this.authorization ? withAuthorization(traced, await this.authorization()) : traced);
      },
      requestInit: { headers: this.cfg.headers },
      reconnectionOptions: { initialReconnectionDelay: 1000, maxReconnectionDelay: 10_000, reconnectionDelayGrowFactor: 2, maxRetries: 2 },
    });
    client.onclose = () => {
      if (this.client === client) this.client = undefined;
    };
    client.onerror = (err) => this.log.debug({ err: err.message }, 'mcp remote: client error');
    try {
      await client.connect(transport, { timeout: this.cfg.connectTimeoutMs });
    } catch (err) {
      await client.close().catch(() => {});
      throw toRemoteError(err, this.cfg);
    }
    this.serverInfo = client.getServerVersion();
    this.instructions = client.getInstructions();
    this.client = client;
    return client;
  }

  /** A protocol error is the remote answering; anything else leaves the connection suspect. */
  private dropOnTransportFailure(client: Client, err: unknown): void {
    if (err instanceof ProtocolError || (err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout)) return;
    if (this.client === client) this.client = undefined;
    void client.close().catch(() => {});
  }
}

function neverReachedTheTool(err: unknown): boolean {
  if (err instanceof SdkHttpError && err.status === 404) return true; // legacy session unknown to a restarted remote
  return causeCodes(err).includes('ECONNREFUSED');
}

function causeCodes(err: unknown): string[] {
  const out: string[] = [];
  for (let e: unknown = err, i = 0; e && typeof e === 'object' && i < 6; e = (e as { cause?: unknown }).cause, i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') out.push(code);
  }
  return out;
}

/** What the A2A client is told; details (addresses, stack) stay in the debug log. */
export function toRemoteError(err: unknown, cfg: Pick<McpRemoteConfig, 'url' | 'callTimeoutMs' | 'connectTimeoutMs'>): RemoteMcpError {
  if (err instanceof RemoteMcpError) return err;
  const where = `The MCP server ${urlOriginAndPath(cfg.url)}`;
  if (err instanceof SsrfRejectedError) return new RemoteMcpError(`${where} is not an allowed destination (${err.kind}); add its host to agents[].mcp.allowlist if it is meant to be reached.`, false);
  const ssrf = findCause(err, SsrfRejectedError);
  if (ssrf) return new RemoteMcpError(`${where} is not an allowed destination (${ssrf.kind}); add its host to agents[].mcp.allowlist if it is meant to be reached.`, false);
  if (err instanceof ProtocolError) return new RemoteMcpError(`${where} refused the call: ${err.message.slice(0, 500)}`, false);
  if (err instanceof SdkHttpError && (err.status === 401 || err.status === 403))
    return new RemoteMcpError(`${where} refused Agentport's credentials (HTTP ${err.status}); check agents[].mcp.headers and agents[].mcp.auth.`, false, err.status);
  if (err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout) return new RemoteMcpError(`${where} did not answer in time.`, true);
  if (err instanceof SdkHttpError) return new RemoteMcpError(`${where} answered HTTP ${err.status}.`, true);
  return new RemoteMcpError(`${where} is unreachable.`, true);
}

function findCause<T>(err: unknown, type: new (...args: never[]) => T): T | undefined {
  for (let e: unknown = err, i = 0; e && typeof e === 'object' && i < 6; e = (e as { cause?: unknown }).cause, i++) if (e instanceof type) return e;
  return undefined;
}

export function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function withAuthorization(init: RequestInit | undefined, authorization: string): RequestInit {
  const headers = new Headers(init?.headers);
  headers.set('authorization', authorization);
  return { ...init, headers };
}

/**
 * The MCP SDK's transport calls fetch with no per-call options: a request whose JSON-RPC body names
 * its trace (`params._meta.traceparent`, set by callTool) gets it as a header too, so the guarded
 * fetch's client span hangs under the agent's run rather than starting a trace of its own.
 */
function withTraceparentOfMeta(init: RequestInit | undefined): RequestInit | undefined {
  const body = init?.body;
  if (typeof body !== 'string' || !body.includes('"traceparent"')) return init;
  let traceparent: unknown;
  try {
    traceparent = (JSON.parse(body) as { params?: { _meta?: { traceparent?: unknown } } })?.params?._meta?.traceparent;
  } catch {
    return init;
  }
  if (typeof traceparent !== 'string') return init;
  const headers = new Headers(init?.headers);
  headers.set('traceparent', traceparent);
  return { ...init, headers };
}
