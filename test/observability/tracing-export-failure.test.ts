/**
 * A collector that cannot be reached is said in the server's log (module `tracing`, warn) once the
 * exporter has given up retrying a batch — and the same complaint at most once a minute, not on
 * every failed batch.
 */
import net from 'node:net';
import { diag } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SHUTDOWN_EXPORT_LIMIT_MS } from '../../src/observability/tracing/start-tracing.js';
import { rpc, startTestServer, userMessage, type TestServer } from '../support/server.js';
import { captureLog, type CapturedLog } from './logging/capture.js';

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function startTraced(log: CapturedLog): Promise<TestServer> {
  const endpoint = `http://127.0.0.1:${await closedPort()}`;
  return startTestServer({ agents: [{ id: 'echo', builtin: 'echo' }], tracing: { enabled: true, endpoint, exportDelay: 50 }, logging: { levels: { tracing: 'warn' } } }, { services: { logDestination: log } });
}

const tracingWarnings = (log: CapturedLog) => log.records().filter((r) => r.module === 'tracing' && r.level === 40);

describe('tracing export failures', () => {
  const log = captureLog();
  let s: TestServer;
  // The OTLP exporter retries a batch until its timeout (10 s by default) before it reports the
  // failure. The SDK's own variable shortens that here to one retry (backoff ~1 s, then give up):
  // the path is the same, retry and all, without waiting out ten seconds for every batch. The
  // export thread copies the environment when it starts, so it is set before the server starts.
  const TIMEOUT_VAR = 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT';
  const saved = process.env[TIMEOUT_VAR];
  // Every failed batch reaches the SDK's error handler, logged or not: counted here, so the test
  // knows that later batches did fail (and were not logged again) instead of sleeping on it.
  const diagErrors = vi.spyOn(diag, 'error');
  beforeAll(async () => {
    process.env[TIMEOUT_VAR] = '1500';
    s = await startTraced(log);
  });
  afterAll(async () => {
    await s?.stop();
    if (saved === undefined) delete process.env[TIMEOUT_VAR];
    else process.env[TIMEOUT_VAR] = saved;
    diagErrors.mockRestore();
  });

  it('are warnings of the tracing module naming the cause, and the same complaint is not repeated within a minute', async () => {
    for (let i = 0; i < 3; i++) expect((await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage(`traced ${i}`) })).status).toBe(200);
    await expect.poll(() => tracingWarnings(log).length, { timeout: 25_000, interval: 100 }).toBeGreaterThan(0);
    const first = tracingWarnings(log)[0]!;
    expect(String(first.msg)).toMatch(/^tracing: .*ECONNREFUSED/);
    const refusals = () => diagErrors.mock.calls.filter((c) => /ECONNREFUSED/.test(String(c[0]))).length;
    const before = refusals();
    // Later batches fail the same way: no second line for the same complaint.
    for (let i = 0; i < 3; i++) await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage(`again ${i}`) });
    await expect.poll(refusals, { timeout: 25_000, interval: 100 }).toBeGreaterThan(before);
    const messages = tracingWarnings(log).map((r) => r.msg);
    expect(new Set(messages).size).toBe(messages.length);
  }, 60_000);
});

describe('tracing export failures at a stop', () => {
  const log = captureLog();
  let s: TestServer;
  let stopped = false;
  // The exporter's default timeout (10 s of retries) here: longer than the stop's export limit.
  beforeAll(async () => {
    s = await startTraced(log);
  });
  afterAll(async () => {
    if (!stopped) await s?.stop();
  });

  it('a stop with spans still owed to it waits at most the export limit, and says the spans are dropped', async () => {
    for (let i = 0; i < 3; i++) expect((await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage(`owed ${i}`) })).status).toBe(200);
    const started = performance.now();
    stopped = true;
    await s.stop();
    // Unbounded, this stop took 10–20 s: the exporter retries the last batch for about ten seconds.
    expect(performance.now() - started).toBeLessThan(SHUTDOWN_EXPORT_LIMIT_MS + 4_000);
    expect(tracingWarnings(log).map((r) => String(r.msg))).toContain('tracing: the last spans were not exported in time at the stop and are dropped; is the collector reachable?');
  }, 30_000);
});
