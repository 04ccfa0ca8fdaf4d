/**
 * Lossless resume with `Last-Event-ID` (docs/extensions/last-event-id.md), on every binding and
 * version that claims it, with events that are really missed: the latch agent emits nothing until
 * the test releases each event, the client disconnects after event 1, events 2–4 are emitted and
 * committed while nobody listens, then the client resubscribes with the last id it saw and the
 * test releases 5 and 6. Every event must arrive exactly once, in order, with increasing ids.
 * Odd and even events go to two artifacts (the second created while the client is away), so that
 * a version that numbers artifacts (v0.1's `index`) must place the replayed chunks right.
 * A binding that ignored Last-Event-ID would open with a snapshot: 2–4 either missing as events
 * or repeated inside it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, waitFor } from '../support/cluster.js';
import { startTestServer, type TestServer } from '../support/server.js';

const LATCH_AGENT = path.join(ROOT, 'test/fixtures/agents/latch-agent.mjs');
const EVENTS = 6;

interface SseEvent {
  id?: string;
  data: any;
}

/** An SSE response read one event at a time, that the test can drop mid-stream. */
class SseConnection {
  private buffer = '';
  private readonly decoder = new TextDecoder();
  private constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    private readonly abort: AbortController,
  ) {}

  static async open(url: string, init: RequestInit): Promise<SseConnection> {
    const abort = new AbortController();
    const res = await fetch(url, { ...init, signal: abort.signal });
    if (res.status !== 200 || !res.headers.get('content-type')?.startsWith('text/event-stream')) {
      throw new Error(`${url}: HTTP ${res.status} ${await res.text()}`);
    }
    return new SseConnection(res.body!.getReader(), abort);
  }

  /** The next event, or undefined at the end of the stream; throws after `timeoutMs` without one. */
  async next(timeoutMs = 5_000): Promise<SseEvent | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no SSE event within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([this.read(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async read(): Promise<SseEvent | undefined> {
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        const lines = block.split('\n').filter((l) => l && !l.startsWith(':'));
        const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));
        if (!data.length) continue;
        const id = lines.find((l) => l.startsWith('id: '))?.slice(4);
        return { ...(id === undefined ? {} : { id }), data: JSON.parse(data.join('\n')) };
      }
      const { value, done } = await this.reader.read();
      if (done) return undefined;
      this.buffer += this.decoder.decode(value, { stream: true });
    }
  }

  /** Drops the connection, as a network cut would. */
  drop(): void {
    this.abort.abort();
  }
}

/** The numbers of every `event <n>` text in a payload, wherever the binding puts it. */
function eventNumbers(value: unknown): number[] {
  if (typeof value === 'string') return [...value.matchAll(/^event (\d+)$/gm)].map((m) => Number(m[1]));
  if (Array.isArray(value)) return value.flatMap(eventNumbers);
  if (value && typeof value === 'object') return Object.values(value).flatMap(eventNumbers);
  return [];
}

interface BindingCase {
  name: string;
  /** the streaming send; `clientId` is used by the versions where the client names the task */
  start(text: string, clientId: string): [string, RequestInit];
  /** the task's id (as this binding names it) from an event of the send stream */
  taskRef(data: any, clientId: string): string | undefined;
  resume(ref: string, lastId: string): [string, RequestInit];
  /** the task read through this binding (to wait until missed events are committed) */
  get(ref: string): [string, RequestInit];
  /** where the version places an artifact chunk among the task's artifacts, if it numbers them */
  artifactIndex?(data: any): number | undefined;
}

const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
const rpc = (method: string, params: unknown, headers: Record<string, string> = {}) => json({ jsonrpc: '2.0', id: 1, method, params }, headers);
const V1 = { 'a2a-version': '1.0' };
const messageId = () => `m-${Math.random().toString(36).slice(2)}`;

function cases(base: string): BindingCase[] {
  const url = `${base}/a2a/latch`;
  const v1Message = (text: string) => ({ messageId: messageId(), role: 'ROLE_USER', parts: [{ text }] });
  const v1TaskId = (r: any) => r?.task?.id ?? r?.statusUpdate?.taskId ?? r?.artifactUpdate?.taskId;
  const v03TaskId = (r: any) => (r?.kind === 'task' ? r.id : r?.taskId);
  return [
    {
      name: 'v1.0 JSON-RPC (SubscribeToTask)',
      start: (text) => [url, rpc('SendStreamingMessage', { message: v1Message(text) }, V1)],
      taskRef: (d) => v1TaskId(d.result),
      resume: (id, last) => [url, rpc('SubscribeToTask', { id }, { ...V1, 'last-event-id': last })],
      get: (id) => [url, rpc('GetTask', { id }, V1)],
    },
    {
      name: 'v1.0 HTTP+JSON (POST tasks/{id}:subscribe, Last-Event-ID header)',
      start: (text) => [`${url}/message:stream`, json({ message: v1Message(text) }, V1)],
      taskRef: (d) => v1TaskId(d),
      resume: (id, last) => [`${url}/tasks/${id}:subscribe`, { method: 'POST', headers: { ...V1, 'last-event-id': last } }],
      get: (id) => [`${url}/tasks/${id}`, { headers: V1 }],
    },
    {
      name: 'v1.0 HTTP+JSON (GET tasks/{id}:subscribe?lastEventId=)',
      start: (text) => [`${url}/message:stream`, json({ message: v1Message(text) }, V1)],
      taskRef: (d) => v1TaskId(d),
      resume: (id, last) => [`${url}/tasks/${id}:subscribe?lastEventId=${last}`, { headers: V1 }],
      get: (id) => [`${url}/tasks/${id}`, { headers: V1 }],
    },
    {
      name: 'v0.3 JSON-RPC (tasks/resubscribe)',
      start: (text) => [url, rpc('message/stream', { message: { kind: 'message', messageId: messageId(), role: 'user', parts: [{ kind: 'text', text }] } })],
      taskRef: (d) => v03TaskId(d.result),
      resume: (id, last) => [url, rpc('tasks/resubscribe', { id }, { 'last-event-id': last })],
      get: (id) => [url, rpc('tasks/get', { id })],
    },
    {
      name: 'v0.3 HTTP+JSON (/v1/tasks/{id}:subscribe)',
      start: (text) => [`${url}/v1/message:stream`, json({ message: { messageId: messageId(), role: 'ROLE_USER', content: [{ text }] } })],
      taskRef: (d) => d?.task?.id ?? d?.statusUpdate?.taskId ?? d?.artifactUpdate?.taskId,
      resume: (id, last) => [`${url}/v1/tasks/${id}:subscribe`, { headers: { 'last-event-id': last } }],
      get: (id) => [`${url}/v1/tasks/${id}`, {}],
    },
    {
      name: 'v0.1 JSON-RPC (tasks/resubscribe)',
      start: (text, clientId) => [url, rpc('tasks/sendSubscribe', { id: clientId, message: { role: 'user', parts: [{ type: 'text', text }] } })],
      taskRef: (_d, clientId) => clientId,
      resume: (id, last) => [url, rpc('tasks/resubscribe', { id }, { 'last-event-id': last })],
      get: (id) => [url, rpc('tasks/get', { id })],
      artifactIndex: (d) => d.result?.artifact?.index,
    },
  ];
}

let server: TestServer;
let scratch: string;

beforeAll(async () => {
  server = await startTestServer({ agents: [{ id: 'latch', module: LATCH_AGENT }] });
  scratch = await mkdtemp(path.join(tmpdir(), 'agentport-resume-'));
});

afterAll(async () => {
  await server?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('stream resume with Last-Event-ID after events were missed', () => {
  for (const [index, c] of cases('http://127.0.0.1:0').entries()) {
    it(`${c.name}: every event exactly once, in order, ids increasing`, async () => {
      const b = cases(server.http)[index]!;
      const latch = await mkdtemp(path.join(scratch, 'l-'));
      const release = (i: number) => writeFile(path.join(latch, `go-${i}`), '');
      const clientId = `resume-${index}-${Date.now().toString(36)}`;
      const seen: Array<{ connection: number; id?: string; events: number[]; index?: number }> = [];
      const record = (connection: number, ev: SseEvent) => {
        const index = b.artifactIndex?.(ev.data);
        seen.push({ connection, id: ev.id, events: eventNumbers(ev.data), ...(index === undefined ? {} : { index }) });
        return eventNumbers(ev.data);
      };

      // Connection 1: up to event 1, then dropped.
      const first = await SseConnection.open(...b.start(`latch ${latch} ${EVENTS} split`, clientId));
      let ref: string | undefined;
      let lastId: string | undefined;
      await release(1);
      for (;;) {
        const ev = await first.next();
        if (!ev) throw new Error('the send stream ended before event 1');
        ref ??= b.taskRef(ev.data, clientId);
        lastId = ev.id ?? lastId;
        if (record(1, ev).includes(1)) break;
      }
      first.drop();
      expect(ref, 'task id from the send stream').toBeDefined();
      expect(lastId, 'an id: line on the send stream').toBeDefined();

      // Disconnected: events 2–4 are emitted and committed.
      for (const i of [2, 3, 4]) await release(i);
      await waitFor(
        async () => {
          const res = await fetch(...b.get(ref!));
          return eventNumbers(await res.json()).includes(4);
        },
        { timeoutMs: 10_000, what: 'events 2-4 committed while disconnected' },
      );

      // Connection 2: resume from the last id seen; 5 and 6 are released while it is open.
      const second = await SseConnection.open(...b.resume(ref!, lastId!));
      let released = 4;
      for (;;) {
        const ev = await second.next().catch((err: Error) => {
          throw new Error(`${err.message} after ${JSON.stringify(seen)}`);
        });
        if (!ev) break;
        if (record(2, ev).includes(released) && released < EVENTS) await release(++released);
      }

      const delivered = seen.flatMap((s) => s.events);
      expect(delivered, JSON.stringify(seen)).toEqual([1, 2, 3, 4, 5, 6]);
      const ids = seen.map((s) => Number(s.id));
      expect(
        ids.every((id) => Number.isInteger(id)),
        'every event carries an id',
      ).toBe(true);
      for (let i = 1; i < ids.length; i++) expect(ids[i], JSON.stringify(seen)).toBeGreaterThan(ids[i - 1]!);
      if (b.artifactIndex) {
        // `odd` was created first (index 0), `even` second (index 1), before or after the cut.
        const placed = seen.filter((s) => s.events.length === 1).map((s) => [s.events[0], s.index]);
        expect(placed, JSON.stringify(seen)).toEqual([1, 2, 3, 4, 5, 6].map((n) => [n, n % 2 ? 0 : 1]));
      }
    }, 30_000);
  }
});
