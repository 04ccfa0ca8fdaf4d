/**
 * A quota refusal in each face's own shape (issue 13): JSON-RPC (the A2A error, HTTP 200 like
 * TooManyStreams, plus Retry-After and the RateLimit fields), HTTP+JSON (429, Retry-After,
 * RateLimit-Policy, RateLimit), v0.3 JSON-RPC, gRPC (RESOURCE_EXHAUSTED with RetryInfo and a
 * retry-after trailer) and an MCP tool result with isError that says when to retry. Also: the
 * management API sets the quota, a Retry-After is honoured, and a concurrent-task slot is held
 * until the task ends. One real server (embedded mode, in-process counters).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as grpc from '@grpc/grpc-js';
import { decodeStatusDetails, STATUS_DETAILS_KEY } from '../../src/protocol/a2a/grpc-status-details.js';
import { challengeParams, startAuthzServer, type AuthzServer } from '../core/authz/support.js';
import { ROOT, waitFor } from '../support/cluster.js';
import { rpc, userMessage } from '../support/server.js';
import { connect } from './a2a-grpc/client.js';
import { modernClient } from './mcp/clients.js';

const LATCH_AGENT = path.join(ROOT, 'test/fixtures/agents/latch-agent.mjs');
let s: AuthzServer;
let scratch: string;

beforeAll(async () => {
  s = await startAuthzServer({
    agents: [
      { id: 'echo', builtin: 'echo' },
      { id: 'echo2', builtin: 'echo' },
      { id: 'latch', module: LATCH_AGENT },
    ],
    quotas: [
      { id: 'short', per: ['key'], match: { agent: 'echo2' }, requests: { limit: 1, window: 2000 } },
      { id: 'one-task', per: ['key'], match: { agent: 'latch' }, concurrentTasks: 1 },
    ],
  });
  scratch = await mkdtemp(path.join(tmpdir(), 'agentport-quota-'));
  const put = await fetch(`${s.http}/api/v1/quotas/per-key`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'x-api-key': s.adminKey },
    body: JSON.stringify({ per: ['key'], match: { agent: 'echo' }, requests: { limit: 2, window: 60_000 } }),
  });
  expect(put.status).toBe(201);
}, 30_000);

afterAll(async () => {
  await s?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const a2aKey = () => s.key(`caller-${randomUUID().slice(0, 8)}`, ['a2a:discover', 'a2a:publish']);
const send = (key: string, agent = 'echo', text = 'hi') => rpc(`${s.http}/a2a/${agent}`, 'SendMessage', { message: userMessage(text) }, { 'x-api-key': key });
const restSend = (key: string, agent = 'echo', body: unknown = { message: userMessage('hi') }) =>
  fetch(`${s.http}/a2a/${agent}/message:send`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-api-key': key }, body: JSON.stringify(body) });

describe('the management API', () => {
  it('lists the file’s quotas as read-only and the API’s as changeable', async () => {
    const admin = { 'x-api-key': s.adminKey };
    const list = (await (await fetch(`${s.http}/api/v1/quotas`, { headers: admin })).json()) as { quotas: Array<{ id: string; source: string }> };
    expect(list.quotas.map((q) => [q.id, q.source])).toEqual([
      ['short', 'config'],
      ['one-task', 'config'],
      ['per-key', 'api'],
    ]);
    expect((await fetch(`${s.http}/api/v1/quotas/short`, { method: 'DELETE', headers: admin })).status).toBe(400);
    const bad = await fetch(`${s.http}/api/v1/quotas/x`, { method: 'PUT', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify({ per: ['nobody'] }) });
    expect(bad.status).toBe(400);
    expect((await fetch(`${s.http}/api/v1/quotas`)).status).toBe(401);
    expect((await fetch(`${s.http}/api/v1/quotas`, { headers: { 'x-api-key': await a2aKey() } })).status).toBe(403);
    expect(challengeParams((await fetch(`${s.http}/api/v1/quotas`)).headers.get('www-authenticate')).scope).toBe('admin');
    const tmp = await fetch(`${s.http}/api/v1/quotas/tmp`, { method: 'PUT', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify({ concurrentTasks: 3 }) });
    expect(tmp.status).toBe(201);
    expect(await (await fetch(`${s.http}/api/v1/quotas/tmp`, { headers: admin })).json()).toEqual({ id: 'tmp', source: 'api', per: [], match: {}, concurrentTasks: 3 });
    expect((await fetch(`${s.http}/api/v1/quotas/tmp`, { method: 'DELETE', headers: admin })).status).toBe(204);
    expect((await fetch(`${s.http}/api/v1/quotas/tmp`, { headers: admin })).status).toBe(404);
  });
});

describe('a quota of 2 calls per minute per key, refused on each face in its own shape', () => {
  it('JSON-RPC: two answered, the third the A2A QuotaExceeded error with Retry-After and the RateLimit fields', async () => {
    const key = await a2aKey();
    for (let i = 0; i < 2; i++) expect((await send(key)).body.result).toBeDefined();
    const r = await send(key);
    expect(r.status).toBe(200);
    expect(r.body.error.code).toBe(-32000);
    expect(r.body.error.message).toMatch(/^Quota 'per-key' exceeded \(2 requests per 60 s\); retry after \d+ s$/);
    expect(r.body.error.data[0]).toMatchObject({ reason: 'QUOTA_EXCEEDED', domain: 'a2a-protocol.org', metadata: { quotaId: 'per-key', quotaKind: 'requests', limit: '2', windowSeconds: '60' } });
    const retryAfter = Number(r.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(r.body.error.data[1]).toEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfter}s` });
    expect(r.headers.get('ratelimit-policy')).toBe('"per-key";q=2;w=60');
    expect(r.headers.get('ratelimit')).toBe(`"per-key";r=0;t=${retryAfter}`);
  });

  it('HTTP+JSON: 429 with Retry-After, RateLimit-Policy and RateLimit', async () => {
    const key = await a2aKey();
    for (let i = 0; i < 2; i++) expect((await restSend(key)).status).toBe(200);
    const r = await restSend(key);
    expect(r.status).toBe(429);
    const body = (await r.json()) as { error: { code: number; status: string; message: string } };
    expect(body.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
    const retryAfter = Number(r.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(body.error.message).toContain(`retry after ${retryAfter} s`);
    expect(r.headers.get('ratelimit-policy')).toBe('"per-key";q=2;w=60');
    expect(r.headers.get('ratelimit')).toBe(`"per-key";r=0;t=${retryAfter}`);
  });

  it('reads count too: GetTask after two sends is refused', async () => {
    const key = await a2aKey();
    const sent = await send(key);
    await send(key);
    const r = await rpc(`${s.http}/a2a/echo`, 'GetTask', { id: sent.body.result.task?.id ?? 'x' }, { 'x-api-key': key });
    expect(r.body.error?.data?.[0]?.reason).toBe('QUOTA_EXCEEDED');
  });

  it('A2A v0.3 JSON-RPC: the v0.3 error with the same fields', async () => {
    const key = await a2aKey();
    const v03 = (id: number) =>
      fetch(`${s.http}/a2a/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'message/send', params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'hi' }] } } }),
      });
    for (let i = 0; i < 2; i++) expect(((await (await v03(i)).json()) as { result?: unknown }).result).toBeDefined();
    const r = await v03(3);
    const body = (await r.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32000);
    expect(body.error.message).toContain("Quota 'per-key' exceeded");
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(r.headers.get('ratelimit-policy')).toBe('"per-key";q=2;w=60');
  });

  it('gRPC: RESOURCE_EXHAUSTED with ErrorInfo, RetryInfo and a retry-after trailer', async () => {
    const key = await a2aKey();
    const c = connect(Number(s.grpc.split(':').pop()));
    try {
      const call = () => c.unary('SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } }, { 'x-api-key': key });
      await call();
      await call();
      const err = (await call().then(
        () => undefined,
        (e: unknown) => e,
      )) as grpc.ServiceError;
      expect(err.code).toBe(8);
      const retryAfter = Number(err.metadata.get('retry-after')[0]);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      const status = decodeStatusDetails(err.metadata.get(STATUS_DETAILS_KEY)[0] as Buffer);
      expect(status.details[0]).toMatchObject({ reason: 'QUOTA_EXCEEDED', metadata: { quotaId: 'per-key', retryAfterSeconds: String(retryAfter) } });
      expect(status.details[1]).toEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfter}s` });
    } finally {
      c.close();
    }
  });

  it('MCP tools/call: a tool result with isError that says when to retry', async () => {
    const key = await s.key(`mcp-${randomUUID().slice(0, 8)}`, ['mcp:tools']);
    const c = await modernClient(`${s.http}/mcp`, { headers: { 'x-api-key': key } });
    try {
      for (let i = 0; i < 2; i++) {
        const ok = (await c.callTool({ name: 'echo_echo', arguments: { message: `call ${i}` } })) as { isError?: boolean };
        expect(ok.isError ?? false).toBe(false);
      }
      const r = (await c.callTool({ name: 'echo_echo', arguments: { message: 'one too many' } })) as { isError?: boolean; content: Array<{ text?: string }>; _meta?: Record<string, unknown> };
      expect(r.isError).toBe(true);
      expect(r.content[0]!.text).toMatch(/^Quota 'per-key' exceeded \(2 requests per 60 s\); retry after \d+ s$/);
      expect(r._meta?.['agentport/retryAfterSeconds']).toEqual(expect.any(Number));
      // a method other than tools/call (resources/read reads the task through the core): a JSON-RPC error
      await expect(c.readResource({ uri: 'agentport://tasks/echo/some-task' })).rejects.toThrow(/Quota 'per-key' exceeded.*retry after \d+ s/);
    } finally {
      await c.close();
    }
  });
});

describe('Retry-After and concurrent tasks', () => {
  it('a call made after waiting Retry-After seconds is admitted again', async () => {
    const key = await a2aKey();
    expect((await send(key, 'echo2')).body.result).toBeDefined();
    const refused = await restSend(key, 'echo2');
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(2);
    await new Promise((r) => setTimeout(r, retryAfter * 1000));
    expect((await send(key, 'echo2')).body.result).toBeDefined();
  });

  it('holds the slot of a running task until it completes, then admits the next', async () => {
    const key = await a2aKey();
    const dir = await mkdtemp(path.join(scratch, 'latch-'));
    const first = await restSend(key, 'latch', { message: userMessage(`latch ${dir} 1`), configuration: { returnImmediately: true } });
    expect(first.status).toBe(200);
    const refused = await restSend(key, 'latch', { message: userMessage(`latch ${dir} 1`), configuration: { returnImmediately: true } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('ratelimit-policy')).toBe('"one-task";q=1;qu="concurrent-requests"');
    expect(refused.headers.get('ratelimit')).toBe('"one-task";r=0');
    // another key has a slot of its own
    const other = await restSend(await a2aKey(), 'latch', { message: userMessage(`latch ${dir} 1`), configuration: { returnImmediately: true } });
    expect(other.status).toBe(200);
    await writeFile(path.join(dir, 'go-1'), '');
    await waitFor(async () => (await restSend(key, 'latch', { message: userMessage(`latch ${dir} 1`) })).status === 200, { timeoutMs: 10_000, intervalMs: 100, what: 'the slot to be released when the task completed' });
  });
});
