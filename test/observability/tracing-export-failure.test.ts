/**
 * A collector that cannot be reached is said in the server's log (module `tracing`, warn) once the
 * exporter has given up retrying a batch — and the same complaint at most once a minute, not on
 * every failed batch.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHUTDOWN_EXPORT_LIMIT_MS } from '../../src/observability/tracing/start-tracing.js';
import { rpc, startTestServer, userMessage, type TestServer } from '../support/server.js';
import { captureLog } from './logging/capture.js';

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('tracing export failures', () => {
  const log = captureLog();
  let s: TestServer;
  let stopped = false;
  beforeAll(async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    s = await startTestServer({ agents: [{ id: 'echo', builtin: 'echo' }], tracing: { enabled: true, endpoint, exportDelay: 50 }, logging: { levels: { tracing: 'warn' } } }, { services: { logDestination: log } });
  });
  afterAll(async () => {
    if (!stopped) await s?.stop();
  });

  const tracingWarnings = () => log.records().filter((r) => r.module === 'tracing' && r.level === 40);

  it('are warnings of the tracing module naming the cause, and the same complaint is not repeated within a minute', async () => {
    for (let i = 0; i < 3; i++) expect((await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage(`traced ${i}`) })).status).toBe(200);
    // The OTLP exporter retries a batch for about ten seconds before it reports the failure.
    await expect.poll(() => tracingWarnings().length, { timeout: 25_000, interval: 200 }).toBeGreaterThan(0);
    const first = tracingWarnings()[0]!;
    expect(String(first.msg)).toMatch(/^tracing: .*ECONNREFUSED/);
    // Later batches fail the same way: no second line for the same complaint.
    for (let i = 0; i < 3; i++) await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage(`again ${i}`) });
    await new Promise((r) => setTimeout(r, 12_000));
    const messages = tracingWarnings().map((r) => r.msg);
    expect(new Set(messages).size).toBe(messages.length);
  }, 60_000);

  it('a stop with spans still owed to it waits at most the export limit, and says the spans are dropped', async () => {
    for (let i = 0; i < 3; i++) expect((await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage(`owed ${i}`) })).status).toBe(200);
    const started = performance.now();
    stopped = true;
    await s.stop();
    // Unbounded, this stop took 10–20 s: the exporter retries the last batch for about ten seconds.
    expect(performance.now() - started).toBeLessThan(SHUTDOWN_EXPORT_LIMIT_MS + 4_000);
    expect(tracingWarnings().map((r) => String(r.msg))).toContain('tracing: the last spans were not exported in time at the stop and are dropped; is the collector reachable?');
  }, 30_000);
});
