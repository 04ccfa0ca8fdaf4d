/**
 * The shared body reader on a real node:http server: the server-wide budget counts what is
 * buffered (chunked bodies too) and is given back when each body is done, and a body that stops
 * arriving meets the read deadline.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { admitBody, BodyBudget, readLimitedBody, type BodyProblem } from '../../src/edge/body.js';

const budget = new BodyBudget(64 * 1024);
const results: Array<string | BodyProblem> = [];
let server: http.Server;
let port: number;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    admitBody(req, { budget, readTimeoutMs: 300 });
    void readLimitedBody(req, 48 * 1024).then((r) => {
      results.push(r);
      res.writeHead(typeof r === 'string' ? 200 : 400, { Connection: 'close' });
      res.end(typeof r === 'string' ? String(r.length) : r.problem);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** A chunked upload: `first` bytes now, the rest (if any) only when `release` is called. */
function chunkedUpload(first: number, rest = 0): { answer: Promise<string>; release: () => void } {
  let release = () => {};
  const answer = new Promise<string>((resolve) => {
    const req = http.request({ port, host: '127.0.0.1', method: 'POST', path: '/', headers: { 'transfer-encoding': 'chunked' } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve(text));
    });
    req.on('error', () => resolve('reset'));
    req.write(Buffer.alloc(first, 'a'));
    release = () => req.end(Buffer.alloc(rest, 'b'));
  });
  return { answer, release };
}

const waitFor = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
};

describe('readLimitedBody under a budget and a deadline', () => {
  it('chunked bodies hold what they buffered; one that would pass the budget is refused busy; all is given back', async () => {
    const a = chunkedUpload(40 * 1024, 1024);
    await waitFor(() => budget.inFlight >= 40 * 1024);
    expect(budget.inFlight).toBe(40 * 1024);
    const b = chunkedUpload(30 * 1024);
    b.release();
    expect(await b.answer).toBe('busy');
    a.release();
    expect(await a.answer).toBe(String(41 * 1024));
    expect(budget.inFlight).toBe(0);
  });

  it('a body that stops arriving is refused with timeout after the deadline, and its bytes are given back', async () => {
    const started = Date.now();
    const stalled = chunkedUpload(1024);
    expect(await stalled.answer).toBe('timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(budget.inFlight).toBe(0);
    stalled.release();
  });
});

/** A body with Content-Length (`declared`) or chunked (`chunked`), sent whole. */
async function upload(bytes: number, chunked: boolean): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    body: chunked
      ? new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(Buffer.alloc(1024, 'a'));
            c.enqueue(Buffer.alloc(bytes - 1024, 'b'));
            c.close();
          },
        })
      : Buffer.alloc(bytes, 'a'),
    ...(chunked ? { duplex: 'half' } : {}),
  } as RequestInit);
  return res.text();
}

// Pins the limit's boundary: exactly `limit` bytes is read (declared or counted), one more is not.
describe('readLimitedBody at its byte limit', () => {
  it.each([false, true])('reads a body of exactly the limit and one byte less (chunked: %s)', async (chunked) => {
    expect(await upload(48 * 1024, chunked)).toBe(String(48 * 1024));
    expect(await upload(48 * 1024 - 1, chunked)).toBe(String(48 * 1024 - 1));
    expect(budget.inFlight).toBe(0);
  });

  it.each([false, true])('refuses one byte over the limit as too-large (chunked: %s)', async (chunked) => {
    expect(await upload(48 * 1024 + 1, chunked)).toBe('too-large');
    expect(budget.inFlight).toBe(0);
  });
});

/** Sends `sent` of a body declared `declared` bytes long, and the rest never. */
function declaredUpload(declared: number, sent: number): Promise<string> {
  return new Promise<string>((resolve) => {
    const req = http.request({ port, host: '127.0.0.1', method: 'POST', path: '/', headers: { 'content-length': String(declared) } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => {
        resolve(text);
        req.destroy();
      });
    });
    req.on('error', () => resolve('reset'));
    req.write(Buffer.alloc(sent, 'a'));
  });
}

describe('the read deadline of a body with a declared length', () => {
  it('still ends a body that stopped arriving before its declared length', async () => {
    expect(await declaredUpload(2048, 1024)).toBe('timeout');
    expect(budget.inFlight).toBe(0);
  });

  it('is not armed for a body already buffered whole when it is read', async () => {
    const local = http.createServer((req, res) => {
      admitBody(req, { budget, readTimeoutMs: 300 });
      const declared = Number(req.headers['content-length']);
      const whenBuffered = () => {
        if (req.readableLength < declared) return void setImmediate(whenBuffered);
        const timers = vi.spyOn(globalThis, 'setTimeout');
        const read = readLimitedBody(req, 48 * 1024);
        const armed = timers.mock.calls.length;
        timers.mockRestore();
        void read.then((r) => res.end(`${typeof r === 'string' ? r.length : r.problem} ${armed}`));
      };
      whenBuffered();
    });
    await new Promise<void>((r) => local.listen(0, '127.0.0.1', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(local.address() as AddressInfo).port}/`, { method: 'POST', body: 'x'.repeat(300) });
      expect(await res.text()).toBe('300 0');
    } finally {
      await new Promise<void>((r) => local.close(() => r()));
    }
  });
});

// Pins the up-front refusal: a declared Content-Length over the limit is refused before a byte is
// read, so a client cannot hold a reservation and a socket by declaring much and sending little.
it('refuses a declared length over the limit at once, without waiting for the body', async () => {
  const answer = await new Promise<string>((resolve) => {
    const req = http.request({ port, host: '127.0.0.1', method: 'POST', path: '/', headers: { 'content-length': String(48 * 1024 + 1) } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => {
        resolve(text);
        req.destroy();
      });
    });
    req.on('error', () => resolve('reset'));
    req.write('only a few bytes'); // and never the rest: a read would end at the 300 ms deadline
  });
  expect(answer).toBe('too-large');
  expect(budget.inFlight).toBe(0);
});
