/**
 * The one edge (src/edge/edge.ts) with stand-in faces: the request id, routing in order with a
 * fallback, the start gate, the one catch of a face's errors, lazy memoised authentication and
 * the body limit of a read.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BodyBudget } from '../../src/edge/body.js';
import { createEdge, type EdgeOptions } from '../../src/edge/edge.js';
import type { Face } from '../../src/edge/face.js';
import { StartGate } from '../../src/edge/start-gate.js';
import { ANONYMOUS, type Principal } from '../../src/core/authz/principal.js';
import type { UsageRecorder } from '../../src/core/usage/usage-recorder.js';
import type { A2AError } from '../../src/protocol/a2a/errors.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

function face(name: string, prefix: string, serve: Face['serve'] = (_req, res) => void res.end(name)): Face & { rejected: A2AError[] } {
  const rejected: A2AError[] = [];
  return {
    name,
    rejected,
    match: (_req, path) => (path.startsWith(prefix) ? true : undefined),
    serve,
    reject: (_req: IncomingMessage, res: ServerResponse, err: A2AError) => {
      rejected.push(err);
      res.writeHead(err.identity.http).end(`${name}:${err.kind}:${err.message}`);
    },
  };
}

let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

async function listen(o: Partial<EdgeOptions> & Pick<EdgeOptions, 'faces' | 'fallback'>): Promise<string> {
  const edge = createEdge({
    authenticate: async () => ({ subject: 'anonymous', authenticated: false, scopes: [] }) as unknown as Principal,
    body: { limit: 1024, policy: { budget: new BodyBudget(1 << 20), readTimeoutMs: 5_000 } },
    log: silent,
    gate: new StartGate(Promise.resolve()),
    isClosing: () => false,
    ...o,
  });
  server = createServer(edge);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the edge', () => {
  it('keeps a well-formed X-Request-Id, replaces any other, and routes to the first face that matches', async () => {
    const base = await listen({ faces: [face('a', '/a'), face('ab', '/ab')], fallback: face('rest', '') });
    const kept = await fetch(`${base}/ab/x`, { headers: { 'x-request-id': 'req-1.2_3' } });
    expect(kept.headers.get('x-request-id')).toBe('req-1.2_3');
    expect(await kept.text()).toBe('a');
    const replaced = await fetch(`${base}/other?q=1`, { headers: { 'x-request-id': 'bad id!' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await replaced.text()).toBe('rest');
  });

  it("holds requests until started, and answers with the face's own refusal when the start failed", async () => {
    let fail!: (e: Error) => void;
    const started = new Promise<void>((_, reject) => (fail = reject));
    started.catch(() => {});
    const a = face('a', '/a');
    const ungated: Face = { ...face('pre', '/pre'), ungated: () => true };
    const base = await listen({ faces: [a, ungated], fallback: face('rest', ''), gate: new StartGate(started) });
    expect(await (await fetch(`${base}/pre`)).text()).toBe('pre');
    const waiting = fetch(`${base}/a`);
    await new Promise((r) => setTimeout(r, 50));
    fail(new Error('no'));
    const res = await waiting;
    expect(res.status).toBe(503);
    expect(await res.text()).toBe('a:Unavailable:The server failed to start');
  });

  it('catches what a face throws: logged, and answered as Internal in its shape', async () => {
    const errors: unknown[] = [];
    const thrower = face('t', '/t', async () => {
      throw new Error('secret detail');
    });
    const base = await listen({ faces: [thrower], fallback: face('rest', ''), log: { ...silent, error: (o: object) => void errors.push(o) } });
    const res = await fetch(`${base}/t`);
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain('secret');
    expect(thrower.rejected.map((e) => e.kind)).toEqual(['Internal']);
    expect(errors).toHaveLength(1);
  });

  it("takes a face's later failure through ctx.failed as one it threw: logged, answered as Internal; once the answer began, its connection cut", async () => {
    const errors: unknown[] = [];
    const later = face('l', '/l', (_req, res, ctx) => {
      // serve returns nothing: the face waits on a promise of its own and hands its failure over
      setImmediate(() => {
        if (ctx.path === '/l/begun') res.writeHead(200).write('part');
        ctx.failed(new Error('secret detail'));
      });
    });
    const base = await listen({ faces: [later], fallback: face('rest', ''), log: { ...silent, error: (o: object) => void errors.push(o) } });
    const res = await fetch(`${base}/l`);
    expect(res.status).toBe(500);
    expect(await res.text()).toBe('l:Internal:Internal error');
    expect(later.rejected.map((e) => e.kind)).toEqual(['Internal']);
    // the head and a part went out (or were on their way): the connection is cut, not answered again
    await expect(fetch(`${base}/l/begun`).then((r) => r.text())).rejects.toThrow();
    expect(later.rejected).toHaveLength(1);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatchObject({ face: 'l', err: { message: 'secret detail' } });
  });

  it('authenticates at most once per resource path, and reads a body under the lowered limit', async () => {
    let calls = 0;
    const probe = face('p', '/p', async (_req, res, ctx) => {
      await ctx.principal('/x');
      await ctx.principal('/x');
      await ctx.principal('/y');
      const small = await ctx.body(4);
      res.end(JSON.stringify({ calls, small: typeof small === 'string' ? small : [small.error.kind, small.error.message, small.headers] }));
    });
    const base = await listen({
      faces: [probe],
      fallback: face('rest', ''),
      authenticate: async () => (calls++, { subject: 's', authenticated: true, scopes: [] }) as unknown as Principal,
    });
    const res = await fetch(`${base}/p`, { method: 'POST', body: 'too long' });
    expect(await res.json()).toEqual({ calls: 2, small: ['PayloadTooLarge', 'The request body exceeds 4 bytes', { Connection: 'close' }] });
  });

  it('reads the bodies of callers without a credential within their share of the budget, so held anonymous uploads leave the rest to authenticated callers (issue 25 D6b)', async () => {
    const KiB = 1024;
    const budget = new BodyBudget(64 * KiB, 16 * KiB);
    const reader = face('r', '/r', async (_req, res, ctx) => {
      await ctx.principal();
      const read = await ctx.body();
      res.writeHead(typeof read === 'string' ? 200 : read.error.identity.http).end(typeof read === 'string' ? String(read.length) : read.error.kind);
    });
    const base = await listen({
      faces: [reader],
      fallback: face('rest', ''),
      body: { limit: 64 * KiB, policy: { budget, readTimeoutMs: 5_000 } },
      authenticate: async (headers) => ({ subject: headers['x-key'] ? 'alice' : 'anonymous', authenticated: !!headers['x-key'], scopes: [] }) as unknown as Principal,
    });
    const url = new URL(`${base}/r`);
    /** A chunked upload that sends `bytes` now and holds the rest back until `end`. */
    const held = (bytes: number, headers: Record<string, string> = {}) => {
      let answered = false;
      let req!: ReturnType<typeof request>;
      const answer = new Promise<string>((resolve) => {
        req = request({ host: url.hostname, port: url.port, path: '/r', method: 'POST', headers: { 'transfer-encoding': 'chunked', ...headers } }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => ((answered = true), resolve(`${res.statusCode} ${text}`)));
        });
        req.on('error', () => resolve('reset'));
        req.write(Buffer.alloc(bytes, 'a'));
      });
      return {
        answer,
        end: () => req.end(),
        get answered() {
          return answered;
        },
      };
    };
    const anonymous = [held(16 * KiB), held(16 * KiB), held(16 * KiB)];
    // One holds the anonymous share; the others are refused busy (before: all three held 48 KiB).
    for (let i = 0; i < 300 && budget.inFlight < 48 * KiB && anonymous.filter((a) => a.answered).length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    const alice = held(40 * KiB, { 'x-key': 'k' });
    alice.end();
    expect(await alice.answer).toBe(`200 ${40 * KiB}`);
    for (const a of anonymous) a.end();
    const answers = (await Promise.all(anonymous.map((a) => a.answer))).sort();
    expect(answers).toEqual([`200 ${16 * KiB}`, '503 Unavailable', '503 Unavailable']);
    expect(budget.inFlight).toBe(0);
  });

  it("notes the caller in the call's usage record: the authenticator's one anonymous answer at once, any other once it resolves", async () => {
    const noted: string[] = [];
    const finished: string[] = [];
    const usage = {
      open: () => ({ noteCaller: (p: Principal) => noted.push(p.subject) }),
      finish: (d: { requestId?: string }) => finished.push(d.requestId ?? ''),
    } as unknown as UsageRecorder;
    const anonymousAnswer = Promise.resolve(ANONYMOUS);
    const alice = { subject: 'alice', authenticated: true, scopes: [] } as unknown as Principal;
    const asks = face('p', '/p', async (_req, res, ctx) => {
      await ctx.principal('/p');
      res.end('ok');
    });
    const base = await listen({
      faces: [asks],
      fallback: face('rest', ''),
      usage,
      anonymousAnswer,
      authenticate: (headers) => (headers['x-api-key'] ? Promise.resolve(alice) : anonymousAnswer),
    });
    expect(await (await fetch(`${base}/p`)).text()).toBe('ok');
    expect(await (await fetch(`${base}/p`, { headers: { 'x-api-key': 'k' } })).text()).toBe('ok');
    await new Promise((r) => setTimeout(r, 50));
    expect(noted).toEqual(['anonymous', 'alice']);
    expect(finished).toHaveLength(2);
  });

  it('takes a caller the authenticator answers at once as the caller at hand, notes it at once, and reads its body at hand within its own share of the budget (issue 26)', async () => {
    const noted: string[] = [];
    const usage = {
      open: () => ({ noteCaller: (p: Principal) => noted.push(p.subject) }),
      finish: () => {},
    } as unknown as UsageRecorder;
    const alice = { subject: 'alice', authenticated: true, scopes: [] } as unknown as Principal;
    const bob = { subject: 'bob', authenticated: true, scopes: [] } as unknown as Principal;
    // 1 KiB for callers without a credential: a 4 KiB body read as anonymous is refused busy.
    const budget = new BodyBudget(64 * 1024, 1024);
    const reader = face('r', '/r', async (_req, res, ctx) => {
      const atHand = ctx.principalAtHand('/r');
      const notedAtHand = noted.length;
      await ctx.principal('/r');
      // The body's bytes are read at hand only after an await (face22); the caller decides the share.
      await new Promise((r) => setTimeout(r, 20));
      const read = ctx.bodyAtHand();
      res.end(JSON.stringify({ atHand: atHand?.subject ?? null, notedAtHand, read: read === undefined ? 'wait' : typeof read === 'string' ? read.length : read.error.kind }));
    });
    const base = await listen({
      faces: [reader],
      fallback: face('rest', ''),
      usage,
      body: { limit: 64 * 1024, policy: { budget, readTimeoutMs: 5_000 } },
      // alice's key is answered at once (a kept record), bob's by a promise (a record read from the store)
      authenticate: (headers) => (headers['x-api-key'] === 'a' ? alice : Promise.resolve(bob)),
    });
    const post = async (key: string) => (await fetch(`${base}/r`, { method: 'POST', headers: { 'x-api-key': key }, body: 'x'.repeat(4096) })).json();
    expect(await post('a')).toEqual({ atHand: 'alice', notedAtHand: 1, read: 4096 });
    // Known once its promise fulfilled: not at hand before the await, the body at hand after it.
    expect(await post('b')).toEqual({ atHand: null, notedAtHand: 1, read: 4096 });
    expect(noted).toEqual(['alice', 'bob']);
    expect(budget.inFlight).toBe(0);
  });

  it('closes connections once the listener is closing', async () => {
    const base = await listen({ faces: [], fallback: face('rest', ''), isClosing: () => true });
    const res = await fetch(`${base}/`);
    expect(res.headers.get('connection')).toBe('close');
  });
});
