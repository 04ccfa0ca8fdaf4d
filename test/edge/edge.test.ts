/**
 * The one edge (src/edge/edge.ts) with stand-in faces: the request id, routing in order with a
 * fallback, the start gate, the one catch of a face's errors, lazy memoised authentication and
 * the body limit of a read.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BodyBudget } from '../../src/edge/body.js';
import { createEdge, type EdgeOptions } from '../../src/edge/edge.js';
import type { Face } from '../../src/edge/face.js';
import { StartGate } from '../../src/edge/start-gate.js';
import type { Principal } from '../../src/core/authz/principal.js';
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

  it('closes connections once the listener is closing', async () => {
    const base = await listen({ faces: [], fallback: face('rest', ''), isClosing: () => true });
    const res = await fetch(`${base}/`);
    expect(res.headers.get('connection')).toBe('close');
  });
});
