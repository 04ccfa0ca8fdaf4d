/**
 * A keep-alive connection stays usable after a handler stops reading a body midway: oidc-provider
 * gives up on bodies past its own 56 KiB limit and answers 400, and the unread rest of a chunked
 * body used to stall the connection, so the next request on it was never answered (found by the
 * fuzz suite, test/fuzz/).
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

describe('connection reuse after a body left unread', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ auth: { mode: 'required' } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  function send(agent: http.Agent, method: string, path: string, chunks: Buffer[] = []): Promise<number> {
    const url = new URL(server.http);
    return new Promise((resolve) => {
      const req = http.request({ agent, hostname: url.hostname, port: url.port, method, path, headers: chunks.length ? { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } : {} }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      const timer = setTimeout(() => {
        req.destroy();
        resolve(0);
      }, 5_000);
      req.on('close', () => clearTimeout(timer));
      req.on('error', () => resolve(-1));
      for (const c of chunks.slice(0, -1)) req.write(c);
      req.end(chunks[chunks.length - 1]);
    });
  }

  it('a 240 KB chunked registration is refused, and the next request on the same connection is answered', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const body = Buffer.from(JSON.stringify({ client_name: 'big', redirect_uris: ['http://127.0.0.1:9/cb'], filler: Array.from({ length: 40_000 }, (_, i) => i) }));
    const half = body.length >> 1;
    expect(await send(agent, 'POST', '/oauth/register', [body.subarray(0, half), body.subarray(half)])).toBe(400);
    expect(await send(agent, 'GET', '/healthz'), 'answered on the reused connection').toBe(200);
    agent.destroy();
  });
});
