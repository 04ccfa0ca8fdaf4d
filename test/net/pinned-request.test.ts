import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { pinnedRequest } from '../../src/net/pinned-request.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function listen(): Promise<{ port: number; seen: IncomingMessage[] }> {
  const seen: IncomingMessage[] = [];
  server = createServer((req, res) => {
    seen.push(req);
    res.end('hello');
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, seen };
}

function send(url: string, addresses: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = pinnedRequest({ url: new URL(url), addresses }, { method: 'GET', headers: { 'x-probe': '1' } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('pinnedRequest', () => {
  it('connects to the approved address whatever the name resolves to, keeping the URL host and path', async () => {
    const { port, seen } = await listen();
    const r = await send(`http://receiver.invalid:${port}/hook?tenant=a`, ['127.0.0.1']);
    expect(r).toEqual({ status: 200, body: 'hello' });
    expect(seen[0]!.headers.host).toBe(`receiver.invalid:${port}`);
    expect(seen[0]!.url).toBe('/hook?tenant=a');
    expect(seen[0]!.headers['x-probe']).toBe('1');
  });

  it('fails rather than resolve the name when no approved address fits', async () => {
    await expect(send('http://receiver.invalid:1/', [])).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});
