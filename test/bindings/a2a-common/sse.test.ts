/**
 * The SSE writer over a real HTTP connection: the first item, then a push-mode stream's items as
 * they are pushed, `: ping` comments from the shared sweep while it is open and none after, and a
 * client that leaves detaches the stream (its close runs, so the task's subscription is released).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { pipeSse } from '../../../src/bindings/a2a-common/sse.js';
import type { StreamItem } from '../../../src/core/a2a-handler.js';
import { AsyncQueue } from '../../../src/core/streams/async-queue.js';

const KEEP_ALIVE_MS = 120;
const item = (seq: number): StreamItem => ({ seq, response: { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } } });
const encoding = { keepAliveMs: KEEP_ALIVE_MS, encode: (i: StreamItem) => JSON.stringify(i.response), encodeError: () => '{"error":true}' };

let server: http.Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

/** A server answering every request with `queue` as an SSE stream; the client's received text so far. */
async function serve(queue: AsyncQueue<StreamItem>) {
  server = http.createServer(async (req, res) => {
    const first = await queue.next();
    await pipeSse(req, res, queue, first, encoding);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  let text = '';
  let ended = false;
  const req = http.get(`http://127.0.0.1:${port}/`);
  await new Promise<void>((resolve, reject) => {
    req.on('response', (res) => {
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => (ended = true));
      resolve();
    });
    req.on('error', reject);
  });
  return { text: () => text, ended: () => ended, leave: () => req.destroy() };
}

async function until(what: string, cond: () => boolean, ms = 5_000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('SSE writer', () => {
  it('writes the first item, then each pushed item in order with its id, and ends with the stream', async () => {
    const queue = new AsyncQueue<StreamItem>();
    queue.push(item(1));
    queue.push(item(2)); // buffered before the writer attaches: written right after the first
    const client = await serve(queue);
    queue.push(item(3));
    queue.end();
    await until('the end of the answer', client.ended);
    const events = client
      .text()
      .split('\n\n')
      .filter((e) => e && !e.startsWith(': ping'));
    expect(events.map((e) => e.split('\n')[0])).toEqual(['id: 1', 'id: 2', 'id: 3']);
    expect(events[0]).toContain('data: {"statusUpdate":');
  });

  it('pings an idle stream about every keepAliveMs, and stops when the stream ends', async () => {
    const queue = new AsyncQueue<StreamItem>();
    queue.push(item(1));
    const client = await serve(queue);
    await new Promise((r) => setTimeout(r, KEEP_ALIVE_MS * 4 + 60));
    const pings = client.text().split(': ping\n\n').length - 1;
    // 4 intervals elapsed; a loaded machine may fire a timer late, never early
    expect(pings).toBeGreaterThanOrEqual(2);
    expect(pings).toBeLessThanOrEqual(5);
    queue.end();
    await until('the end of the answer', client.ended);
    const atEnd = client.text();
    await new Promise((r) => setTimeout(r, KEEP_ALIVE_MS * 2));
    expect(client.text()).toBe(atEnd);
  });

  it('detaches the stream when the client leaves: its close runs and later pushes go nowhere', async () => {
    let closed = 0;
    const queue = new AsyncQueue<StreamItem>(() => closed++);
    queue.push(item(1));
    const client = await serve(queue);
    await until('the first event', () => client.text().includes('id: 1'));
    client.leave();
    await until('the stream closed', () => closed === 1);
    expect(() => queue.push(item(2))).not.toThrow();
    expect(closed).toBe(1);
  });
});
