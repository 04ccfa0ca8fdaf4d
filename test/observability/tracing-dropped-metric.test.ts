/**
 * Spans dropped at a full export queue reach /metrics as agentport_trace_spans_dropped_total, in a
 * real server (the CLI as a child process) whose queue is bounded by OTEL_BSP_MAX_QUEUE_SIZE and
 * whose collector takes the first batch and never answers: one batch in flight, the queue full,
 * every later span dropped and counted, the count never reset by a scrape.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHILD_KEY, startChildServer, type ChildServer } from '../support/child-server.js';
import { parseExposition } from '../support/prometheus.js';
import { userMessage } from '../support/a2a-payloads.js';

const QUEUE = 8;
const BATCH = 4;

describe('agentport_trace_spans_dropped_total', () => {
  let server: ChildServer;
  let collector: http.Server;
  const held: http.ServerResponse[] = [];
  let posts = 0;

  beforeAll(async () => {
    // Takes an export and never answers it: the export stays in flight.
    collector = http.createServer((req, res) => {
      posts++;
      req.resume();
      held.push(res);
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    server = await startChildServer(
      { tracing: { enabled: true, endpoint, exportDelay: 10 } },
      { env: { OTEL_BSP_MAX_QUEUE_SIZE: String(QUEUE), OTEL_BSP_MAX_EXPORT_BATCH_SIZE: String(BATCH), OTEL_BSP_EXPORT_TIMEOUT: '600000', OTEL_EXPORTER_OTLP_TIMEOUT: '600000' } },
    );
  }, 60_000);

  afterAll(async () => {
    for (const res of held) res.destroy();
    await server?.stop();
    collector?.closeAllConnections();
    await new Promise((r) => collector?.close(r));
  });

  const echo = async (text: string) => {
    const res = await fetch(`${server.base}/a2a/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${CHILD_KEY}`, 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage(text) } }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { error?: unknown }).error).toBeUndefined();
  };

  const dropped = async (): Promise<number> => {
    const res = await fetch(`${server.base}/metrics`, { headers: { authorization: `Bearer ${CHILD_KEY}` } });
    expect(res.status).toBe(200);
    const family = (await parseExposition(await res.text())).families.get('agentport_trace_spans_dropped_total');
    expect(family?.type).toBe('COUNTER');
    return Number(family!.metrics[0]!.value);
  };

  it('counts every span past the queue the environment bounds, and a scrape does not reset it', async () => {
    // Each call ends at least one span (the HTTP server span); while the one batch sent is unanswered
    // at most QUEUE spans are held (that batch included), so at least 20 - QUEUE are dropped.
    for (let i = 0; i < 20; i++) await echo(`first ${i}`);
    await expect.poll(() => posts, { timeout: 10_000 }).toBe(1);
    const first = await dropped();
    expect(first).toBeGreaterThanOrEqual(20 - QUEUE);
    // The queue is still full: the next ten calls' spans are all dropped, added to the count.
    for (let i = 0; i < 10; i++) await echo(`then ${i}`);
    const second = await dropped();
    expect(second - first).toBeGreaterThanOrEqual(10);
    // One batch at a time: nothing more was sent while the first is unanswered.
    expect(posts).toBe(1);
    expect(server.alive()).toBe(true);
  }, 60_000);
});
