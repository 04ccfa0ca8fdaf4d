/**
 * The shared body reader (src/edge/body.ts) in process: a real IncomingMessage fed by hand, so
 * each boundary is exact — a body of exactly the limit is read and one byte more is refused, the
 * budget holds exactly its capacity, a refusal gives back what it reserved and leaves no listener
 * behind, and each refusal maps to its A2A error (status from the spec's table: 413, 503, 408, 400).
 * The same reader on a real node:http server: body.test.ts.
 */
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { admitBody, BODY_BUSY_RETRY_AFTER_SECONDS, BodyBudget, bodyRefusal, bodyRefusalHeaders, bodyRefused, readLimitedBody, type BodyProblem } from '../../src/edge/body.js';

function request(headers: Record<string, string> = {}): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  req.headers = headers;
  return req;
}

const LISTENED = ['data', 'end', 'error', 'aborted'] as const;
const listeners = (req: IncomingMessage) => LISTENED.map((e) => req.listenerCount(e));

afterEach(() => {
  vi.useRealTimers();
});

describe('BodyBudget', () => {
  it('holds exactly its capacity, no byte more; given back, it holds again', () => {
    const b = new BodyBudget(10);
    expect(b.tryReserve(4)).toBe(true);
    expect(b.tryReserve(6)).toBe(true);
    expect(b.inFlight).toBe(10);
    expect(b.tryReserve(1)).toBe(false);
    expect(b.inFlight).toBe(10);
    b.release(6);
    expect(b.inFlight).toBe(4);
    expect(b.tryReserve(7)).toBe(false);
    expect(b.tryReserve(6)).toBe(true);
  });

  it('anonymous readers share at most their part; the rest stays for authenticated ones', () => {
    const b = new BodyBudget(10, 4);
    expect(b.anonymousCapacity).toBe(4);
    expect(b.tryReserve(4, true)).toBe(true);
    expect(b.tryReserve(1, true)).toBe(false);
    expect(b.inFlight).toBe(4);
    expect(b.tryReserve(6)).toBe(true);
    b.release(4, true);
    expect(b.inFlight).toBe(6);
    expect(b.tryReserve(4, true)).toBe(true);
    expect(b.tryReserve(1)).toBe(false);
  });

  it('giving back an authenticated reservation leaves the anonymous share as it was; the share never goes below zero', () => {
    const b = new BodyBudget(100, 4);
    expect(b.tryReserve(4, true)).toBe(true);
    expect(b.tryReserve(6)).toBe(true);
    b.release(6);
    expect(b.tryReserve(1, true)).toBe(false);
    b.release(10, true);
    expect(b.tryReserve(4, true)).toBe(true);
    expect(b.tryReserve(1, true)).toBe(false);
  });

  it('an anonymous reservation refused for the whole budget does not use the anonymous share', () => {
    const b = new BodyBudget(10, 8);
    expect(b.tryReserve(8)).toBe(true);
    expect(b.tryReserve(3, true)).toBe(false);
    b.release(8);
    expect(b.tryReserve(8, true)).toBe(true);
  });

  it('without an anonymous share, anonymous readers may use all of it; releasing more than held never goes below zero', () => {
    const b = new BodyBudget(10);
    expect(b.anonymousCapacity).toBe(10);
    expect(b.tryReserve(10, true)).toBe(true);
    b.release(25, true);
    expect(b.inFlight).toBe(0);
    expect(b.tryReserve(10, true)).toBe(true);
  });
});

describe('readLimitedBody', () => {
  it('a body of exactly the limit is read, across chunks, with a character split between them', async () => {
    const req = request();
    const reading = readLimitedBody(req, 6);
    const euro = Buffer.from('a€b', 'utf8'); // 1 + 3 + 1 bytes
    req.push(euro.subarray(0, 2));
    req.push(Buffer.concat([euro.subarray(2), Buffer.from('c')]));
    req.push(null);
    expect(await reading).toBe('a€bc');
    expect(listeners(req)).toEqual([0, 0, 0, 0]);
  });

  it('one byte over the limit is too large', async () => {
    const req = request();
    const reading = readLimitedBody(req, 6);
    req.push(Buffer.from('abc'));
    req.push(Buffer.from('defg'));
    req.push(null);
    expect(await reading).toEqual({ problem: 'too-large' });
    expect(listeners(req)).toEqual([0, 0, 0, 0]);
  });

  it('a declared length over the limit is refused before reading; the declared limit itself is read', async () => {
    expect(await readLimitedBody(request({ 'content-length': '7' }), 6)).toEqual({ problem: 'too-large' });
    const req = request({ 'content-length': '6' });
    const reading = readLimitedBody(req, 6);
    req.push(Buffer.from('abcdef'));
    req.push(null);
    expect(await reading).toBe('abcdef');
  });

  it('a declared length that is not a length is ignored: the bytes decide', async () => {
    for (const declared of ['abc', '-1']) {
      const req = request({ 'content-length': declared });
      const reading = readLimitedBody(req, 6);
      req.push(Buffer.from('abc'));
      req.push(null);
      expect(await reading).toBe('abc');
    }
  });

  it('an empty body is the empty string; a request already read to its end is too', async () => {
    const req = request();
    const reading = readLimitedBody(req, 6);
    req.push(null);
    expect(await reading).toBe('');
    const ended = request();
    ended.push(null);
    ended.resume();
    await new Promise((r) => ended.once('end', r));
    expect(ended.readableEnded).toBe(true);
    expect(await readLimitedBody(ended, 6)).toBe('');
  });

  it('a stream error or an aborted request is unreadable', async () => {
    const failing = request();
    const reading = readLimitedBody(failing, 6);
    failing.emit('error', new Error('socket hang up'));
    expect(await reading).toEqual({ problem: 'unreadable' });
    const aborted = request();
    const reading2 = readLimitedBody(aborted, 6);
    aborted.emit('aborted');
    expect(await reading2).toEqual({ problem: 'unreadable' });
    expect(listeners(aborted)).toEqual([0, 0, 0, 0]);
  });
});

/** The events a reader subscribes to on `req`, in order, from now on. */
function subscriptions(req: IncomingMessage): string[] {
  const seen: string[] = [];
  req.on('newListener', (event: string | symbol) => seen.push(String(event)));
  return seen;
}

describe('readLimitedBody of a body already buffered whole (issue 26, ADR 0055)', () => {
  it('its declared length in: read at once, without a listener; the stream still ends and is destroyed when the message ends', async () => {
    const budget = new BodyBudget(100);
    const req = request({ 'content-length': '5' });
    admitBody(req, { budget, readTimeoutMs: 60_000 });
    req.push(Buffer.from('a€', 'utf8'));
    req.push(Buffer.from('b'));
    const seen = subscriptions(req);
    expect(await readLimitedBody(req, 5)).toBe('a€b');
    expect(seen).toEqual([]);
    expect(budget.inFlight).toBe(0);
    expect(req.readableLength).toBe(0);
    // the parser's end of the message, after the body's last bytes (node:http marks it complete, then ends the stream)
    const ended = new Promise((r) => req.once('end', r));
    req.complete = true;
    req.push(null);
    await ended;
    await new Promise((r) => setImmediate(r));
    expect(req.destroyed).toBe(true);
    expect(req.aborted).toBe(false);
  });

  it('a complete message without a declared length (chunked) is read at once too', async () => {
    const req = request();
    req.push(Buffer.from('{"a":'));
    req.push(Buffer.from('1}'));
    req.push(null);
    req.complete = true;
    const seen = subscriptions(req);
    expect(await readLimitedBody(req, 100)).toBe('{"a":1}');
    expect(seen).toEqual([]);
    await new Promise((r) => req.once('end', r));
  });

  it('an empty body declared as such is the empty string', async () => {
    const req = request({ 'content-length': '0' });
    expect(await readLimitedBody(req, 10)).toBe('');
    const ended = new Promise((r) => req.once('end', r));
    req.push(null);
    await ended;
  });

  it('one byte over the limit is too large, the budget untouched; exactly the limit is read', async () => {
    const budget = new BodyBudget(100);
    const over = request();
    admitBody(over, { budget, readTimeoutMs: 60_000 });
    over.push(Buffer.alloc(7, 'x'));
    over.push(null);
    over.complete = true;
    expect(await readLimitedBody(over, 6)).toEqual({ problem: 'too-large' });
    expect(budget.inFlight).toBe(0);
    const exact = request();
    admitBody(exact, { budget, readTimeoutMs: 60_000 });
    exact.push(Buffer.alloc(6, 'y'));
    exact.push(null);
    exact.complete = true;
    expect(await readLimitedBody(exact, 6)).toBe('yyyyyy');
  });

  it('a budget that cannot hold it is busy, and what others hold stays held', async () => {
    const budget = new BodyBudget(100, 30);
    expect(budget.tryReserve(20, true)).toBe(true);
    const req = request({ 'content-length': '11' });
    admitBody(req, { budget, readTimeoutMs: 60_000 });
    req.push(Buffer.alloc(11));
    expect(await readLimitedBody(req, 1000, true)).toEqual({ problem: 'busy' });
    expect(budget.inFlight).toBe(20);
    expect(listeners(req)).toEqual([0, 0, 0, 0]);
    // a credential's reader is not held to the anonymous share
    expect(await readLimitedBody(req, 1000)).toHaveLength(11);
    expect(budget.inFlight).toBe(20);
  });

  it('part of a declared length in is read as a stream, under the deadline', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const req = request({ 'content-length': '4' });
    admitBody(req, { budget: new BodyBudget(100), readTimeoutMs: 1000 });
    req.push(Buffer.from('ab'));
    const seen = subscriptions(req);
    const reading = readLimitedBody(req, 10);
    expect(seen).toContain('data');
    expect(vi.getTimerCount()).toBe(1);
    req.push(Buffer.from('cd'));
    req.push(null);
    expect(await reading).toBe('abcd');
  });
});

describe('readLimitedBody under a policy', () => {
  it('reserves what it buffers and gives it all back once read', async () => {
    const budget = new BodyBudget(100);
    const req = request();
    admitBody(req, { budget, readTimeoutMs: 60_000 });
    const reading = readLimitedBody(req, 50);
    req.push(Buffer.alloc(20, 'a'));
    await new Promise((r) => setImmediate(r));
    expect(budget.inFlight).toBe(20);
    req.push(Buffer.alloc(30, 'b'));
    req.push(null);
    expect(await reading).toHaveLength(50);
    expect(budget.inFlight).toBe(0);
  });

  it('a chunk the budget cannot hold is busy; the bytes already reserved are given back, the anonymous share too', async () => {
    const budget = new BodyBudget(100, 30);
    const req = request();
    admitBody(req, { budget, readTimeoutMs: 60_000 });
    const reading = readLimitedBody(req, 1000, true);
    req.push(Buffer.alloc(20));
    req.push(Buffer.alloc(20));
    expect(await reading).toEqual({ problem: 'busy' });
    expect(budget.inFlight).toBe(0);
    expect(req.isPaused()).toBe(true);
    expect(listeners(req)).toEqual([0, 0, 0, 0]);
    expect(budget.tryReserve(30, true)).toBe(true);
  });

  it('a reader with a credential is not held to the anonymous share', async () => {
    const budget = new BodyBudget(100, 10);
    const req = request();
    admitBody(req, { budget, readTimeoutMs: 60_000 });
    const reading = readLimitedBody(req, 50);
    req.push(Buffer.alloc(20, 'a'));
    req.push(null);
    expect(await reading).toHaveLength(20);
  });

  it('a body too large under a policy gives back what it reserved', async () => {
    const budget = new BodyBudget(100);
    const req = request();
    admitBody(req, { budget, readTimeoutMs: 60_000 });
    const reading = readLimitedBody(req, 30);
    req.push(Buffer.alloc(20));
    req.push(Buffer.alloc(20));
    expect(await reading).toEqual({ problem: 'too-large' });
    expect(budget.inFlight).toBe(0);
  });

  it('a body not complete by the deadline is timeout, its bytes given back; before the deadline it is read', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const budget = new BodyBudget(100);
    const slow = request();
    admitBody(slow, { budget, readTimeoutMs: 1000 });
    let result: string | BodyProblem | undefined;
    void readLimitedBody(slow, 50).then((r) => (result = r));
    slow.push(Buffer.alloc(10));
    await new Promise((r) => setImmediate(r));
    expect(budget.inFlight).toBe(10);
    await vi.advanceTimersByTimeAsync(999);
    expect(result).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(result).toEqual({ problem: 'timeout' });
    expect(budget.inFlight).toBe(0);
    expect(listeners(slow)).toEqual([0, 0, 0, 0]);

    const quick = request();
    admitBody(quick, { budget, readTimeoutMs: 1000 });
    const reading = readLimitedBody(quick, 50);
    quick.push(Buffer.from('ok'));
    quick.push(null);
    expect(await reading).toBe('ok');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('nothing after the answer counts: data arriving after a refusal reserves nothing', async () => {
    const budget = new BodyBudget(100);
    const req = request();
    admitBody(req, { budget, readTimeoutMs: 60_000 });
    const reading = readLimitedBody(req, 10);
    req.push(Buffer.alloc(11));
    expect(await reading).toEqual({ problem: 'too-large' });
    req.push(Buffer.alloc(5));
    req.push(null);
    await new Promise((r) => setImmediate(r));
    expect(budget.inFlight).toBe(0);
  });
});

describe('the A2A error of each refusal', () => {
  it.each([
    ['too-large', 'PayloadTooLarge', 413, 'The request body exceeds 4096 bytes'],
    ['busy', 'Unavailable', 503, 'The server is receiving too many request bodies; retry shortly'],
    ['timeout', 'RequestTimeout', 408, 'The request body did not arrive in time'],
    ['unreadable', 'InvalidRequest', 400, 'The request body could not be read'],
  ] as const)('%s: %s (%i)', (problem, kind, status, message) => {
    const e = bodyRefusal({ problem }, 4096);
    expect(e.kind).toBe(kind);
    expect(e.identity.http).toBe(status);
    expect(e.message).toBe(message);
  });

  it('busy says when to retry and keeps the connection; every other refusal closes it', () => {
    expect(BODY_BUSY_RETRY_AFTER_SECONDS).toBe(1);
    expect(bodyRefusalHeaders({ problem: 'busy' })).toEqual({ 'Retry-After': '1' });
    for (const problem of ['too-large', 'timeout', 'unreadable'] as const) expect(bodyRefusalHeaders({ problem })).toEqual({ Connection: 'close' });
    const refused = bodyRefused({ problem: 'too-large' }, 10);
    expect(refused.error.kind).toBe('PayloadTooLarge');
    expect(refused.error.message).toBe('The request body exceeds 10 bytes');
    expect(refused.headers).toEqual({ Connection: 'close' });
  });
});
