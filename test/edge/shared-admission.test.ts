/**
 * Issue 26 item 3: one admission policy for both listeners (edge/caller-admission.ts, its
 * decisions in test/edge/caller-admission.test.ts). A request the HTTP edge's A2A face refuses
 * before reading it, the gRPC listener refuses too, for the same reason, each in its own shape.
 */
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFUSED_BODY_BYTES } from '../../src/edge/caller-admission.js';
import { a2aServiceDefinition } from '../../src/protocol/a2a/grpc-proto.js';
import { STATUS_DETAILS_KEY, decodeStatusDetails } from '../../src/protocol/a2a/grpc-status-details.js';
import { startTestServer, type TestServer } from '../support/server.js';

const KEY = 'ap_shared_admission_key_0123456789';
const SEND = a2aServiceDefinition().SendMessage!;

describe('one refusal, two listeners, each in its own shape', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ agents: [{ id: 'echo', builtin: 'echo' }], auth: { mode: 'required', apiKeys: [{ key: KEY, subject: 'alice', scopes: ['a2a:discover', 'a2a:publish'] }] } });
  }, 120_000);
  afterAll(async () => s?.stop());

  /** A SendMessage whose text makes it larger than the read limit of a refused caller. */
  const oversized = { message: { messageId: 'm-oversized', role: 'ROLE_USER', parts: [{ text: 'x'.repeat(REFUSED_BODY_BYTES * 2) }] } };

  it('an anonymous oversized SendMessage: HTTP JSON-RPC answers 401 with a challenge, gRPC ends UNAUTHENTICATED', async () => {
    const res = await fetch(`${s.http}/a2a/echo`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: oversized }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
    const body = (await res.json()) as { error: { code: number; data?: unknown } };
    expect(body.error.code).toBe(-32000);

    const client = new grpc.Client(s.grpc, grpc.credentials.createInsecure());
    const md = new grpc.Metadata();
    md.set('a2a-version', '1.0');
    const outcome = await new Promise<{ code: number; reason?: string }>((resolve) => {
      client.makeUnaryRequest(SEND.path, SEND.requestSerialize, SEND.responseDeserialize, oversized, md, { deadline: Date.now() + 30_000 }, (err) => {
        client.close();
        if (!err) return resolve({ code: grpc.status.OK });
        const raw = err.metadata?.get(STATUS_DETAILS_KEY)[0];
        const info = Buffer.isBuffer(raw) ? decodeStatusDetails(raw).details.find((d) => String(d['@type']).endsWith('ErrorInfo')) : undefined;
        resolve({ code: err.code, ...(info ? { reason: String(info.reason) } : {}) });
      });
    });
    expect(outcome).toEqual({ code: grpc.status.UNAUTHENTICATED, reason: 'UNAUTHENTICATED' });
  });

  it('the same request with a credential is read and served on both listeners', async () => {
    const res = await fetch(`${s.http}/a2a/echo`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', 'X-API-Key': KEY },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { ...oversized, message: { ...oversized.message, messageId: 'm-http' } } }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { result?: unknown }).result).toBeDefined();

    const client = new grpc.Client(s.grpc, grpc.credentials.createInsecure());
    const md = new grpc.Metadata();
    md.set('a2a-version', '1.0');
    md.set('x-api-key', KEY);
    const code = await new Promise<number>((resolve) => {
      const request = { ...oversized, message: { ...oversized.message, messageId: 'm-grpc' } };
      client.makeUnaryRequest(SEND.path, SEND.requestSerialize, SEND.responseDeserialize, request, md, { deadline: Date.now() + 30_000 }, (err) => {
        client.close();
        resolve(err ? err.code : grpc.status.OK);
      });
    });
    expect(code).toBe(grpc.status.OK);
  });
});
