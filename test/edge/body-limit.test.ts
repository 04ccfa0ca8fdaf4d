/**
 * limits.bodyBytes at its boundary, over the wire on each HTTP face that takes a message: a body of
 * exactly the limit is read and answered, one byte more is refused with 413, one byte less is read.
 * Pins the comparison (`size > limit`, `declared > limit`): an off-by-one refuses the largest
 * body the configuration promises to take, or takes one byte more than it allows.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

const LIMIT = 4096;

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ agents: [{ id: 'echo', builtin: 'echo' }], limits: { bodyBytes: LIMIT } });
});
afterAll(async () => s?.stop());

/** A body of exactly `bytes` bytes (ASCII), the message text padded to make up the length. */
function bodyOf(bytes: number, wrap: (text: string) => unknown): string {
  const empty = JSON.stringify(wrap(''));
  const body = JSON.stringify(wrap('x'.repeat(bytes - empty.length)));
  expect(Buffer.byteLength(body)).toBe(bytes);
  return body;
}

const message = (text: string) => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] });
const FACES = [
  { face: 'A2A JSON-RPC', path: '/a2a/echo', wrap: (text: string) => ({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: message(text) } }) },
  { face: 'A2A HTTP+JSON', path: '/a2a/echo/message:send', wrap: (text: string) => ({ message: message(text) }) },
];

async function post(path: string, body: string, chunked: boolean): Promise<number> {
  const bytes = Buffer.from(body);
  // A stream body has no Content-Length: the reader meets the limit while counting, not up front.
  const payload = chunked
    ? new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(bytes.subarray(0, 1000));
          c.enqueue(bytes.subarray(1000));
          c.close();
        },
      })
    : bytes;
  const res = await fetch(`${s.http}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: payload,
    ...(chunked ? { duplex: 'half' } : {}),
  } as RequestInit);
  await res.arrayBuffer();
  return res.status;
}

describe.each(FACES)('limits.bodyBytes on $face', ({ path, wrap }) => {
  it.each([false, true])('takes a body of exactly the limit, and one byte less (chunked: %s)', async (chunked) => {
    expect(await post(path, bodyOf(LIMIT, wrap), chunked)).toBe(200);
    expect(await post(path, bodyOf(LIMIT - 1, wrap), chunked)).toBe(200);
  });

  it.each([false, true])('refuses a body one byte over the limit with 413 (chunked: %s)', async (chunked) => {
    expect(await post(path, bodyOf(LIMIT + 1, wrap), chunked)).toBe(413);
  });
});
