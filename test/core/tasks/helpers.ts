/**
 * Shared helpers for the task-semantics suite: a server with the probe fixture agent (plus the
 * conformance builtin), an incremental SSE reader for streams that stay open, and polling waits.
 */
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server.js';

export const PROBE_MODULE = fileURLToPath(new URL('../../fixtures/agents/probe-agent.ts', import.meta.url));

export const TERMINAL = ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'];

/** A server hosting `probe` (the fixture agent) and `conformance`, plus any extra config. */
export function startProbeServer(config: Record<string, unknown> = {}): Promise<TestServer> {
  return startTestServer({
    agents: [
      { id: 'probe', module: PROBE_MODULE },
      { id: 'conformance', builtin: 'conformance' },
    ],
    ...config,
    // executor failures are logged at error level on purpose; keep the test output readable
    server: { logLevel: 'fatal', ...(config.server as object) },
  });
}

let rpcId = 0;

/**
 * Streams use node:http rather than fetch: destroying the request closes the socket at once, so a
 * client disconnect is exactly that (an aborted fetch leaves undici's socket lingering for seconds).
 */
function open(url: string, method: string, headers: Record<string, string>, body: string | undefined, headersTimeoutMs: number): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { 'a2a-version': '1.0', accept: 'text/event-stream', ...headers } }, (res) => {
      clearTimeout(timer);
      resolve(new SseStream(req, res));
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no response headers within ${headersTimeoutMs} ms`));
    }, headersTimeoutMs);
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.end(body);
  });
}

/** Opens a JSON-RPC streaming call (SendStreamingMessage / SubscribeToTask). */
export function rpcStream(url: string, method: string, params: unknown, headers: Record<string, string> = {}, headersTimeoutMs = 10_000): Promise<SseStream> {
  return open(url, 'POST', { 'content-type': 'application/json', ...headers }, JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }), headersTimeoutMs);
}

/** Opens an HTTP+JSON stream (GET or POST). */
export function restStream(url: string, init: { method?: string; body?: unknown; headers?: Record<string, string>; headersTimeoutMs?: number } = {}): Promise<SseStream> {
  return open(
    url,
    init.method ?? 'GET',
    { ...(init.body !== undefined ? { 'content-type': 'application/a2a+json' } : {}), ...init.headers },
    init.body !== undefined ? JSON.stringify(init.body) : undefined,
    init.headersTimeoutMs ?? 10_000,
  );
}

export interface SseEvent {
  id?: string;
  event?: string;
  data: any;
}

/** Reads SSE events as they arrive; `next()` waits (with a timeout) for the next one or the end. */
export class SseStream {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly isSse: boolean;
  /** every event received so far */
  readonly events: SseEvent[] = [];
  ended = false;
  private buffer = '';
  private cursor = 0;
  private wake?: () => void;
  private readonly done: Promise<void>;
  /** the whole body, when the response is not an event stream (e.g. a JSON-RPC error) */
  body?: any;

  constructor(
    private readonly req: http.ClientRequest,
    res: http.IncomingMessage,
  ) {
    this.status = res.statusCode ?? 0;
    this.headers = res.headers;
    this.isSse = (res.headers['content-type'] ?? '').startsWith('text/event-stream');
    res.setEncoding('utf8');
    let raw = '';
    res.on('data', (chunk: string) => {
      if (!this.isSse) {
        raw += chunk;
        return;
      }
      this.buffer += chunk;
      let i: number;
      while ((i = this.buffer.indexOf('\n\n')) >= 0) {
        const block = this.buffer.slice(0, i);
        this.buffer = this.buffer.slice(i + 2);
        const ev = parseBlock(block);
        if (ev) {
          this.events.push(ev);
          this.notify();
        }
      }
    });
    this.done = new Promise<void>((resolve) => {
      const finish = () => {
        if (this.ended) return;
        if (!this.isSse) {
          try {
            this.body = JSON.parse(raw);
          } catch {
            this.body = raw;
          }
        }
        this.ended = true;
        this.notify();
        resolve();
      };
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
    });
  }

  /** The JSON body of a non-SSE response. */
  async json(): Promise<any> {
    await this.done;
    return this.body;
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = setTimeout(resolve, Math.max(1, ms));
      const prev = this.wake;
      this.wake = () => {
        clearTimeout(t);
        prev?.();
        resolve();
      };
    });
  }

  /** The next unread event, or undefined once the stream has ended. Throws on timeout. */
  async next(timeoutMs = 5_000): Promise<SseEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.cursor < this.events.length) return this.events[this.cursor++];
      if (this.ended) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no SSE event within ${timeoutMs} ms (received ${this.events.length})`);
      await this.sleep(left);
    }
  }

  /** Reads until the server closes the stream; returns every event (including those already read). */
  async untilEnd(timeoutMs = 10_000): Promise<SseEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`stream still open after ${timeoutMs} ms (received ${this.events.length})`);
      await this.sleep(left);
    }
    this.cursor = this.events.length;
    return this.events;
  }

  /** Resolves true if the stream is still open after `ms`. */
  async staysOpenFor(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!this.ended && Date.now() < deadline) await this.sleep(deadline - Date.now());
    return !this.ended;
  }

  /** Client-side disconnect: destroys the socket. */
  close(): void {
    this.req.destroy();
  }
}

function parseBlock(block: string): SseEvent | undefined {
  const lines = block.split('\n').filter((l) => l && !l.startsWith(':'));
  if (!lines.length) return undefined;
  const ev: SseEvent = { data: undefined };
  const data: string[] = [];
  for (const l of lines) {
    if (l.startsWith('id:')) ev.id = l.slice(3).trim();
    else if (l.startsWith('event:')) ev.event = l.slice(6).trim();
    else if (l.startsWith('data:')) data.push(l.slice(5).replace(/^ /, ''));
  }
  if (!data.length) return undefined;
  ev.data = JSON.parse(data.join('\n'));
  return ev;
}

/** The StreamResponse of a JSON-RPC SSE event (asserting it is a result, not an error). */
export function resultOf(ev: SseEvent | undefined): any {
  expect(ev, 'expected an SSE event').toBeDefined();
  expect(ev!.data.error, `unexpected stream error ${JSON.stringify(ev!.data.error)}`).toBeUndefined();
  return ev!.data.result;
}

/** `task` → task.status.state, `statusUpdate` → its state, `artifactUpdate` → 'artifact:<id>', `message` → 'message'. */
export function describeEvent(r: any): string {
  if (r.task) return `task:${r.task.status.state}`;
  if (r.statusUpdate) return `status:${r.statusUpdate.status.state}`;
  if (r.artifactUpdate) return `artifact:${r.artifactUpdate.artifact.artifactId}`;
  if (r.message) return 'message';
  return `?${JSON.stringify(r)}`;
}

/** Polls `probe` until it returns a truthy value. */
export async function waitFor<T>(probe: () => T | Promise<T>, what: string, timeoutMs = 5_000, everyMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await probe();
    if (last) return last;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** JSON-RPC error code of a response body (undefined when it succeeded). */
export const codeOf = (body: any): number | undefined => body?.error?.code;
