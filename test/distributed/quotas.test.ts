/**
 * Quotas across replicas, issue 13 "Done means": two replicas of the real CLI on one PostgreSQL
 * schema and one Redis prefix. A quota of N calls per minute on an API key admits exactly N calls
 * spread over both replicas and refuses the next in each face's shape (JSON-RPC, HTTP+JSON, gRPC,
 * MCP tools/call); a Retry-After is honoured; a concurrent-task slot taken on one replica binds the
 * other until the task ends; a quota set through the management API on one replica is enforced by
 * the other.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeStatusDetails, STATUS_DETAILS_KEY } from '../../src/protocol/a2a/grpc-status-details.js';
import { connect } from '../bindings/a2a-grpc/client.js';
import { modernClient } from '../bindings/mcp/clients.js';
import { dropSchema, ensureBuilt, startCluster, uniqueName, waitFor, withFailureLogs, type Cluster, type Replica } from '../support/cluster.js';
import { userMessage } from './a2a-client.js';

const PG_URL = process.env.AGENTPORT_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.AGENTPORT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const N = 4;

const KEYS = {
  jsonrpc: `jsonrpc-${randomUUID()}`,
  rest: `rest-${randomUUID()}`,
  grpc: `grpc-${randomUUID()}`,
  mcp: `mcp-${randomUUID()}`,
  shorty: `shorty-${randomUUID()}`,
  busy: `busy-${randomUUID()}`,
  admin: `admin-${randomUUID()}`,
  race: `race-${randomUUID()}`,
};
const A2A_SCOPES = ['a2a:discover', 'a2a:publish'];

let cluster: Cluster;
let A: Replica;
let B: Replica;
let dir: string;
const schema = uniqueName('quotas');
const prefix = uniqueName('quotas');

const jsonRpc = (r: Replica, key: string, agent = 'echo', params: Record<string, unknown> = { message: userMessage('hi') }) =>
  fetch(r.url(agent), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-api-key': key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params }),
  });
const rest = (r: Replica, key: string, agent = 'echo', body: Record<string, unknown> = { message: userMessage('hi') }) =>
  fetch(`${r.url(agent)}/message:send`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-api-key': key }, body: JSON.stringify(body) });

describe('quotas on two replicas sharing PostgreSQL and Redis', () => {
  beforeAll(async () => {
    ensureBuilt();
    dir = await mkdtemp(path.join(tmpdir(), 'agentport-quotas-'));
    cluster = await startCluster(['A', 'B'], {
      postgresUrl: PG_URL,
      schema,
      redisUrl: REDIS_URL,
      prefix,
      agentLog: path.join(dir, 'agent.log'),
      extraConfig: {
        auth: {
          mode: 'required',
          apiKeys: [
            { key: KEYS.jsonrpc, subject: 'jsonrpc', scopes: A2A_SCOPES },
            { key: KEYS.rest, subject: 'rest', scopes: A2A_SCOPES },
            { key: KEYS.grpc, subject: 'grpc', scopes: A2A_SCOPES },
            { key: KEYS.mcp, subject: 'mcp', scopes: ['mcp:tools'] },
            { key: KEYS.shorty, subject: 'shorty', scopes: A2A_SCOPES },
            { key: KEYS.busy, subject: 'busy', scopes: A2A_SCOPES },
            { key: KEYS.admin, subject: 'root', scopes: ['admin'] },
            { key: KEYS.race, subject: 'race', scopes: A2A_SCOPES },
          ],
        },
        quotas: [
          { id: 'per-key', per: ['key'], match: { agent: 'echo' }, requests: { limit: N, window: 60_000 } },
          { id: 'short', per: ['key'], match: { subject: 'shorty' }, requests: { limit: 1, window: 2_000 } },
          { id: 'one-task', per: ['key'], match: { agent: 'work' }, concurrentTasks: 1 },
        ],
      },
    });
    [A, B] = [cluster.get('A'), cluster.get('B')];
  }, 180_000);

  afterAll(async () => {
    await cluster?.stop();
    await dropSchema(PG_URL, schema).catch(() => undefined);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const logs = { cluster: () => cluster };
  const replicaOf = (i: number) => (i % 2 ? B : A);

  it(`JSON-RPC: ${N} calls over both replicas admitted, the next refused with the A2A error and the RateLimit fields`, () =>
    withFailureLogs(logs, async () => {
      for (let i = 0; i < N; i++) {
        const body = (await (await jsonRpc(replicaOf(i), KEYS.jsonrpc)).json()) as { result?: unknown; error?: unknown };
        expect(body.error, `call ${i + 1} on ${replicaOf(i).id}`).toBeUndefined();
      }
      for (const r of [A, B]) {
        const res = await jsonRpc(r, KEYS.jsonrpc);
        const body = (await res.json()) as { error: { code: number; message: string; data: Array<Record<string, unknown>> } };
        expect(body.error.code).toBe(-32000);
        expect(body.error.data[0]).toMatchObject({ reason: 'QUOTA_EXCEEDED', metadata: { quotaId: 'per-key', limit: String(N) } });
        const retryAfter = Number(res.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
        expect(res.headers.get('ratelimit-policy')).toBe(`"per-key";q=${N};w=60`);
        expect(res.headers.get('ratelimit')).toBe(`"per-key";r=0;t=${retryAfter}`);
      }
    }));

  it(`${3 * N} calls at once, half on each replica: exactly ${N} admitted`, () =>
    withFailureLogs(logs, async () => {
      const statuses = await Promise.all(Array.from({ length: 3 * N }, (_, i) => rest(replicaOf(i), KEYS.race).then((r) => r.status)));
      expect(statuses.filter((s) => s === 200)).toHaveLength(N);
      expect(statuses.filter((s) => s === 429)).toHaveLength(2 * N);
    }));

  it(`HTTP+JSON: ${N} admitted, then 429 with Retry-After, RateLimit-Policy and RateLimit`, () =>
    withFailureLogs(logs, async () => {
      for (let i = 0; i < N; i++) expect((await rest(replicaOf(i), KEYS.rest)).status, `call ${i + 1}`).toBe(200);
      const res = await rest(B, KEYS.rest);
      expect(res.status).toBe(429);
      expect(((await res.json()) as { error: { status: string } }).error.status).toBe('RESOURCE_EXHAUSTED');
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(res.headers.get('ratelimit-policy')).toBe(`"per-key";q=${N};w=60`);
      expect(res.headers.get('ratelimit')).toBe(`"per-key";r=0;t=${retryAfter}`);
    }));

  it(`gRPC: ${N} admitted, then RESOURCE_EXHAUSTED with RetryInfo`, () =>
    withFailureLogs(logs, async () => {
      const clients = [connect(A.grpcPort), connect(B.grpcPort)];
      try {
        const send = (i: number) => clients[i % 2]!.unary('SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } }, { 'x-api-key': KEYS.grpc });
        for (let i = 0; i < N; i++) await send(i);
        const err = (await send(N).then(
          () => undefined,
          (e: unknown) => e,
        )) as grpc.ServiceError;
        expect(err?.code).toBe(8);
        const status = decodeStatusDetails(err.metadata.get(STATUS_DETAILS_KEY)[0] as Buffer);
        expect(status.details[0]).toMatchObject({ reason: 'QUOTA_EXCEEDED', metadata: { quotaId: 'per-key' } });
        expect(status.details[1]).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.RetryInfo' });
        expect(Number(err.metadata.get('retry-after')[0])).toBeGreaterThanOrEqual(1);
      } finally {
        for (const c of clients) c.close();
      }
    }));

  it(`MCP tools/call: ${N} answered, then a tool result with isError saying when to retry`, () =>
    withFailureLogs(logs, async () => {
      const clients = [await modernClient(`${A.base}/mcp`, { headers: { 'x-api-key': KEYS.mcp } }), await modernClient(`${B.base}/mcp`, { headers: { 'x-api-key': KEYS.mcp } })];
      try {
        for (let i = 0; i < N; i++) {
          const r = (await clients[i % 2]!.callTool({ name: 'echo_echo', arguments: { message: `call ${i}` } })) as { isError?: boolean };
          expect(r.isError ?? false, `call ${i + 1}`).toBe(false);
        }
        const r = (await clients[1]!.callTool({ name: 'echo_echo', arguments: { message: 'one too many' } })) as { isError?: boolean; content: Array<{ text?: string }> };
        expect(r.isError).toBe(true);
        expect(r.content[0]!.text).toMatch(/^Quota 'per-key' exceeded \(4 requests per 60 s\); retry after \d+ s$/);
      } finally {
        for (const c of clients) await c.close();
      }
    }));

  it('a call made after waiting Retry-After seconds is admitted again, on the other replica', () =>
    withFailureLogs(logs, async () => {
      expect((await rest(A, KEYS.shorty)).status).toBe(200);
      const refused = await rest(B, KEYS.shorty);
      expect(refused.status).toBe(429);
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(2);
      await new Promise((r) => setTimeout(r, retryAfter * 1000));
      expect((await rest(B, KEYS.shorty)).status).toBe(200);
    }));

  it('a running task holds its slot on every replica until it ends', () =>
    withFailureLogs(logs, async () => {
      const first = await rest(A, KEYS.busy, 'work', { message: userMessage('slow 20'), configuration: { returnImmediately: true } });
      expect(first.status).toBe(200);
      const refused = await rest(B, KEYS.busy, 'work', { message: userMessage('hello'), configuration: { returnImmediately: true } });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('ratelimit-policy')).toBe('"one-task";q=1;qu="concurrent-requests"');
      // freed when the slow task completes (~2 s), without a restart or a lease expiry
      await waitFor(async () => (await rest(B, KEYS.busy, 'work', { message: userMessage('hello') })).status === 200, { timeoutMs: 20_000, intervalMs: 200, what: 'the slot to be freed when the task completed' });
    }));

  it('a quota set through the management API on one replica is enforced by the other', () =>
    withFailureLogs(logs, async () => {
      const put = await fetch(`${A.base}/api/v1/quotas/jsonrpc-cap`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'x-api-key': KEYS.admin },
        body: JSON.stringify({ match: { subject: 'jsonrpc', agent: 'work' }, requests: { limit: 1, window: 60_000 } }),
      });
      expect(put.status).toBe(201);
      // B re-reads the database's quotas within seconds; until then its answer may still admit
      await waitFor(
        async () => {
          const r = await jsonRpc(B, KEYS.jsonrpc, 'work', { message: userMessage('hello') });
          const body = (await r.json()) as { error?: { data?: Array<{ metadata?: { quotaId?: string } }> } };
          return body.error?.data?.[0]?.metadata?.quotaId === 'jsonrpc-cap';
        },
        { timeoutMs: 15_000, intervalMs: 300, what: 'B to enforce the quota set on A (calls to `work` refused by jsonrpc-cap)' },
      );
    }));
});
