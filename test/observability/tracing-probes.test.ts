/**
 * Probes are not traced (issue 25): `/healthz`, `/readyz` and a `/metrics` scrape on the main
 * listener answer many times a minute and are kept out of the access log and usage already; they
 * make no spans either, with or without a caller's `traceparent`, while an ordinary request made
 * after them is exported (the spans come back through a real OTLP/HTTP receiver, decoded).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/cluster.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.js';

const METRICS_TOKEN = 'probe-scrape-token-5b1e';

let otlp: OtlpReceiver;
let server: TestServer;

const traceparent = (traceId: string) => `00-${traceId}-${randomBytes(8).toString('hex')}-01`;

describe('probes are not traced', () => {
  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    server = await startTestServer({
      agents: [{ id: 'echo', builtin: 'echo' }],
      metrics: { token: METRICS_TOKEN },
      tracing: { enabled: true, endpoint: otlp.endpoint, exportDelay: 50 },
    });
  });

  afterAll(async () => {
    await server?.stop();
    await otlp?.close();
  });

  it('/healthz, /readyz and /metrics make no span, with or without a traceparent; the next ordinary request does', async () => {
    const probeTraces: string[] = [];
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      const auth: Record<string, string> = path === '/metrics' ? { authorization: `Bearer ${METRICS_TOKEN}` } : {};
      const traceId = randomBytes(16).toString('hex');
      probeTraces.push(traceId);
      const traced = await fetch(`${server.http}${path}`, { headers: { ...auth, traceparent: traceparent(traceId) } });
      expect(traced.status, path).toBe(200);
      await traced.text();
      const bare = await fetch(`${server.http}${path}?probe=1`, { headers: auth });
      expect(bare.status, path).toBe(200);
      await bare.text();
    }
    // The fence: a request after the probes, whose span ends after theirs would have.
    const fence = randomBytes(16).toString('hex');
    const card = await fetch(`${server.http}/a2a/echo/.well-known/agent-card.json`, { headers: { traceparent: traceparent(fence) } });
    expect(card.status).toBe(200);
    await card.text();
    await waitFor(() => otlp.spans.some((s) => s.traceId === fence), { timeoutMs: 10_000, what: 'the span of the request after the probes', detail: () => otlp.spans.map((s) => s.name).join(', ') });

    expect(otlp.spans.filter((s) => probeTraces.includes(s.traceId))).toEqual([]);
    // Nor a trace of their own (a readiness check's store read as a root span, say): nothing but the fence's.
    expect(otlp.spans.filter((s) => s.traceId !== fence).map((s) => s.name)).toEqual([]);
  });
});
