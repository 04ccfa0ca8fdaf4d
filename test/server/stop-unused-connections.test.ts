/**
 * A stop does not wait on connections that never sent a byte. Node counts such a connection as
 * busy until `headersTimeout` (60 s), so a client's unused pool socket held a test server's stop
 * for about a minute (test/observability/metrics.test.ts, about half its runs). Both HTTP
 * listeners are checked: the main one and the separate /metrics one of `metrics.listen`.
 */
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../support/server.js';

/** A TCP connection to `url`'s host and port, open and silent. */
async function silentConnection(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

/** How the stop went, within `limitMs`: 'stopped', or 'still waiting' (then the sockets are ended so the stop can finish). */
async function stopWithin(stop: () => Promise<void>, limitMs: number, sockets: Socket[]): Promise<string> {
  const stopped = stop().then(() => 'stopped');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('still waiting'), limitMs);
  });
  const outcome = await Promise.race([stopped, late]);
  clearTimeout(timer);
  for (const s of sockets) s.destroy();
  await stopped;
  return outcome;
}

describe('server stop with connections that never sent a byte', () => {
  it('ends them on the main listener: the stop takes seconds, not headersTimeout', async () => {
    const server = await startTestServer({ agents: [{ id: 'echo', builtin: 'echo' }] });
    const silent = [await silentConnection(server.http), await silentConnection(server.http)];
    const ended = silent.map((s) => new Promise<void>((resolve) => s.once('close', () => resolve())));
    // A connection that was used stays as it was: its answer arrives before the stop.
    expect((await fetch(`${server.http}/healthz`)).status).toBe(200);
    expect(await stopWithin(() => server.stop(), 5_000, silent)).toBe('stopped');
    await Promise.all(ended);
  });

  it('ends them on the separate metrics listener too', async () => {
    const server = await startTestServer({ metrics: { listen: '127.0.0.1:0' } });
    const metricsUrl = server.urls.metrics;
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const silent = [await silentConnection(metricsUrl!)];
    expect(await stopWithin(() => server.stop(), 5_000, silent)).toBe('stopped');
  });

  it('answers a connection whose request had begun before the stop', async () => {
    const server = await startTestServer({});
    const partial = await silentConnection(server.http);
    partial.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    await new Promise((resolve) => setTimeout(resolve, 100));
    let answer = '';
    partial.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
    });
    const stopping = stopWithin(() => server.stop(), 5_000, []);
    await new Promise((resolve) => setTimeout(resolve, 200));
    partial.end('\r\n');
    expect(await stopping).toBe('stopped');
    expect(answer, 'an HTTP answer, not a reset').toMatch(/^HTTP\/1\.1 \d{3} /);
  });
});
