/**
 * Issue 19 D6: request bodies are not buffered before authentication, all bodies in flight share
 * one server-wide budget, and a body that trickles in meets a read deadline. Judged from outside:
 * the real CLI as a child process, its resident memory read from /proc while raw sockets attack it,
 * and a legitimate caller answered meanwhile.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHILD_KEY, startChildServer, type ChildServer } from '../support/child-server.js';
import { sleep } from '../support/private-services.js';

const MiB = 1024 * 1024;
const BODY = 4 * MiB - 1; // just under the default limits.bodyBytes
const READ_TIMEOUT_MS = 1_500;

interface Outcome {
  status: number; // 0: no answer
  head: string;
  body: string;
  /**
   * How the wait ended: the whole answer read, the client's wait elapsed, or the socket closed
   * first; with the code of the socket's last error (ECONNRESET, EPIPE…) and how far the upload
   * got, so an unexpected status says why (a status 0 under heavy load was seen once).
   */
  ended: 'answer' | 'timeout' | 'close';
  error?: string;
  afterMs: number;
  /** connected; the whole upload taken by the kernel (its write's callback ran) */
  connected: boolean;
  flushed: boolean;
}

/** One outcome, for an assertion's message. */
function describeOutcome(o: Outcome): string {
  const upload = o.connected ? (o.flushed ? 'upload flushed' : 'upload not flushed') : 'never connected';
  return `status ${o.status} after ${o.afterMs} ms, ended by ${o.ended}${o.error ? ` (socket error ${o.error})` : ''}, ${upload}, head ${JSON.stringify(o.head.slice(0, 120))}`;
}

/**
 * One raw upload: headers, then `bodyBytes` of `x` as fast as the socket takes them (or `sendBytes`
 * of them, then silence). Resolves with the answer, or status 0 when none came within `waitMs`.
 */
function upload(base: string, path: string, headers: Record<string, string>, bodyBytes: number, o: { waitMs: number; sendBytes?: number; payload: Buffer; sent?: () => void }): Promise<Outcome> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const started = Date.now();
    let text = '';
    let error: string | undefined;
    let settled = false;
    let connected = false;
    let flushed = false;
    const done = (ended: Outcome['ended']) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const split = text.indexOf('\r\n\r\n');
      const head = split < 0 ? text : text.slice(0, split);
      const raw = split < 0 ? '' : text.slice(split + 4);
      const body = /transfer-encoding: chunked/i.test(head) ? dechunk(raw) : raw;
      resolve({ status, head, body, ended, ...(error ? { error } : {}), afterMs: Date.now() - started, connected, flushed });
    };
    const timer = setTimeout(() => done('timeout'), o.waitMs);
    socket.on('data', (c: Buffer) => {
      text += c.toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(text.slice(0, split))?.[1] ?? -1);
      if (length >= 0 ? text.length >= split + 4 + length : text.endsWith('\r\n0\r\n\r\n') || text.slice(split + 4).startsWith('0\r\n\r\n')) done('answer');
    });
    // EPIPE/ECONNRESET once the server answers early and closes: kept, to say why if no answer came
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on('close', () => done('close'));
    socket.on('connect', () => {
      connected = true;
      const lines = [`POST ${path} HTTP/1.1`, `Host: ${url.host}`, `Content-Length: ${bodyBytes}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      socket.write(o.payload.subarray(0, o.sendBytes ?? bodyBytes), (err) => {
        flushed = !err;
        o.sent?.();
      });
    });
  });
}

function dechunk(raw: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const eol = raw.indexOf('\r\n', at);
    if (eol < 0) return out;
    const size = parseInt(raw.slice(at, eol), 16);
    if (!(size > 0)) return out;
    out += raw.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}

/** Runs `attack` while sampling the child's RSS every 25 ms; the peak growth over the baseline. */
async function peakGrowth<T>(server: ChildServer, attack: () => Promise<T>): Promise<{ result: T; growth: number; baseline: number }> {
  const baseline = server.rss();
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, server.alive() ? server.rss() : 0)), 25);
  try {
    const result = await attack();
    peak = Math.max(peak, server.rss());
    return { result, growth: peak - baseline, baseline };
  } finally {
    clearInterval(sampler);
  }
}

async function legitimateSend(base: string, text = 'still here?'): Promise<number> {
  const started = Date.now();
  const res = await fetch(`${base}/a2a/echo`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-api-key': CHILD_KEY },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: `m-${started}-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] } } }),
    signal: AbortSignal.timeout(15_000),
  });
  const body = (await res.json()) as { result?: { task?: { status?: { state?: string } } } };
  expect(res.status).toBe(200);
  expect(body.result?.task?.status?.state).toBe('TASK_STATE_COMPLETED');
  return Date.now() - started;
}

describe('request bodies at the edge (issue 19 D6)', () => {
  let server: ChildServer;
  let payload: Buffer;
  beforeAll(async () => {
    payload = Buffer.alloc(BODY, 'x');
    server = await startChildServer({ limits: { bodyBytesInFlight: '16MiB', bodyReadTimeoutMs: READ_TIMEOUT_MS } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('200 anonymous 4 MiB uploads to credentialed routes are refused unread: RSS grows < 64 MiB and others are served meanwhile', async () => {
    const paths = ['/a2a/echo', '/a2a/echo/message:send', '/api/v1/keys', '/mcp/tools/call', '/mcp'];
    const { result, growth } = await peakGrowth(server, async () => {
      const uploads = Array.from({ length: 200 }, (_, i) =>
        upload(server.base, paths[i % paths.length]!, { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, BODY, { waitMs: 20_000, payload }),
      );
      await sleep(50);
      const servedIn = await legitimateSend(server.base);
      return { outcomes: await Promise.all(uploads), servedIn };
    });
    expect(growth, `RSS grew by ${(growth / MiB).toFixed(1)} MiB`).toBeLessThan(64 * MiB);
    const statuses = new Map<number, number>();
    for (const o of result.outcomes) statuses.set(o.status, (statuses.get(o.status) ?? 0) + 1);
    const others = result.outcomes.filter((o) => o.status !== 401);
    expect(Object.fromEntries(statuses), `every anonymous upload is answered 401; not: ${others.slice(0, 3).map(describeOutcome).join('; ')}`).toEqual({ 401: 200 });
    for (const o of result.outcomes) expect(o.head).toMatch(/WWW-Authenticate: Bearer/i);
    expect(server.alive()).toBe(true);
  }, 60_000);

  it("100 authenticated 4 MiB uploads over every face share a 16 MiB budget: the rest get 503 + Retry-After in the face's shape, RSS grows < 256 MiB", async () => {
    // the path, and what its 503 body looks like
    const faces: Array<[string, (body: unknown) => void]> = [
      ['/a2a/echo', (b) => expect(b).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32603 } })],
      ['/a2a/echo/message:send', (b) => expect(b).toMatchObject({ error: { code: 503, status: 'UNAVAILABLE' } })],
      ['/api/v1/keys', (b) => expect(b).toMatchObject({ error: { code: 503, status: 'UNAVAILABLE' } })],
      ['/mcp', (b) => expect(b).toMatchObject({ jsonrpc: '2.0', error: { code: -32603 } })],
      ['/mcp/tools/call', (b) => expect(b).toMatchObject({ jsonrpc: '2.0', error: { code: -32603 } })],
    ];
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-API-Key': CHILD_KEY, 'A2A-Version': '1.0' };
    const { result, growth } = await peakGrowth(server, async () => {
      const uploads = Array.from({ length: 100 }, (_, i) => upload(server.base, faces[i % faces.length]![0], headers, BODY, { waitMs: 30_000, payload }));
      await sleep(50);
      const servedIn = await legitimateSend(server.base);
      return { outcomes: await Promise.all(uploads), servedIn };
    });
    // 16 MiB of buffers at most, plus the garbage of the refused bodies' discarded bytes (400 MiB
    // arrive in all). What separates the two: the code before the budget held the bodies and grew
    // by more than 340 MiB; with the budget, growth is that garbage awaiting the collector — 91–152
    // MiB alone (this build and the one before it alike), and 195 MiB once in a full suite run,
    // where the collector lags behind the arriving bytes. The line sits between the two.
    expect(growth, `RSS grew by ${(growth / MiB).toFixed(1)} MiB`).toBeLessThan(256 * MiB);
    const busy = result.outcomes.map((o, i) => ({ o, face: faces[i % faces.length]! })).filter(({ o }) => o.status === 503);
    expect(busy.length, 'some uploads were over the budget').toBeGreaterThan(0);
    for (const { o, face } of busy) {
      expect(o.head, face[0]).toMatch(/Retry-After: 1/i);
      face[1](JSON.parse(o.body));
    }
    // The rest were read in full (then refused as not JSON) or met the deadline.
    for (const o of result.outcomes) expect([200, 400, 408, 503], describeOutcome(o)).toContain(o.status);
    expect(server.alive()).toBe(true);
  }, 60_000);

  it('a body that stops arriving is answered 408 in the binding shape after limits.bodyReadTimeoutMs', async () => {
    const started = Date.now();
    const [rpc, rest] = await Promise.all([
      upload(server.base, '/a2a/echo', { 'Content-Type': 'application/json', 'X-API-Key': CHILD_KEY, 'A2A-Version': '1.0' }, 1000, { waitMs: 10_000, sendBytes: 10, payload }),
      upload(server.base, '/a2a/echo/message:send', { 'Content-Type': 'application/json', 'X-API-Key': CHILD_KEY, 'A2A-Version': '1.0' }, 1000, { waitMs: 10_000, sendBytes: 10, payload }),
    ]);
    const took = Date.now() - started;
    expect(rpc.status, describeOutcome(rpc)).toBe(408);
    expect(JSON.parse(rpc.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(rest.status, describeOutcome(rest)).toBe(408);
    expect(JSON.parse(rest.body)).toMatchObject({ error: { code: 408, status: 'DEADLINE_EXCEEDED' } });
    expect(took).toBeGreaterThanOrEqual(READ_TIMEOUT_MS - 100);
    expect(took).toBeLessThan(READ_TIMEOUT_MS + 5_000);
  }, 30_000);
});

describe('the Novaeden task routes authenticate before the body (issue 25 D6b)', () => {
  let server: ChildServer;
  let payload: Buffer;
  beforeAll(async () => {
    payload = Buffer.alloc(BODY, 'x');
    // A long read deadline: a body held open keeps its reservation for the whole test.
    server = await startChildServer({ limits: { bodyBytesInFlight: '16MiB', bodyReadTimeoutMs: 60_000 } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('20 anonymous 4 MiB uploads held open on POST /api/v1/agents/{id}/tasks and /a2a/agents/{id}/tasks are answered 401 unread; an authenticated 1 MiB SendMessage succeeds three times meanwhile', async () => {
    const paths = ['/api/v1/agents/echo/tasks', '/a2a/agents/echo/tasks'];
    let sent = 0;
    const settled: boolean[] = [];
    // All but the last byte: a body that never completes, so only an answer on the headers can come.
    const uploads = Array.from({ length: 20 }, (_, i) =>
      upload(server.base, paths[i % 2]!, { 'Content-Type': 'application/json' }, BODY, { waitMs: 30_000, sendBytes: BODY - 1, payload, sent: () => sent++ }).then((o) => ((settled[i] = true), o)),
    );
    // Each upload was either handed over in full (and, before the fix, buffered against the budget) or answered.
    for (let i = 0; i < 600 && uploads.some((_, j) => !settled[j]) && sent < uploads.length; i++) await sleep(50);
    const big = 'y'.repeat(MiB);
    for (let i = 0; i < 3; i++) await legitimateSend(server.base, big);
    const outcomes = await Promise.all(uploads);
    for (const o of outcomes) {
      expect(o.status, o.head).toBe(401);
      expect(o.head).toMatch(/WWW-Authenticate: Bearer/i);
    }
    expect(server.alive()).toBe(true);
  }, 90_000);
});
