/** The gRPC listener authenticates with the same Authenticator: refused credentials are UNAUTHENTICATED. */
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueAccessToken } from '../../src/auth/access-tokens.js';
import { createApiKey } from '../../src/auth/api-keys.js';
import { KeyStore } from '../../src/core/keys/key-store.js';
import { openSqliteStore } from '../../src/store/index.js';
import { connect, errorOf, richStatus, type A2AGrpcTestClient } from '../bindings/a2a-grpc/client.js';
import { startTestServer, userMessage, type TestServer } from '../support/server.js';

let s: TestServer;
let client: A2AGrpcTestClient;
let revoked = '';

beforeAll(async () => {
  s = await startTestServer();
  client = connect(Number(s.grpc.split(':').pop()));
  const store = await openSqliteStore({ file: join(s.dataDir, 'agentport.db'), checkpointThread: false });
  try {
    const k = createApiKey({ subject: 'alice' });
    await store.putApiKey(k.record);
    await store.revokeApiKey(k.record.keyId, Date.now());
    revoked = k.key;
  } finally {
    await store.close();
  }
});

afterAll(async () => {
  client?.close();
  await s?.stop();
});

const send = (md: Record<string, string>) => client.unary<{ task?: { id: string } }>('SendMessage', { message: userMessage('hi') }, md);

describe('gRPC authentication', () => {
  it('refuses a revoked API key with UNAUTHENTICATED and the reason', async () => {
    const err = await errorOf(send({ authorization: `Bearer ${revoked}` }));
    expect(err.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(err.details).toBe('The API key has been revoked');
    expect(richStatus(err).details.some((d) => (d as { reason?: string }).reason === 'UNAUTHENTICATED')).toBe(true);
  });

  it('refuses an expired own token with UNAUTHENTICATED', async () => {
    const keys = new KeyStore({ dataDir: s.dataDir });
    const now = Math.floor(Date.now() / 1000);
    const token = await issueAccessToken(keys, { issuer: s.http, audience: s.http, subject: 'alice', issuedAt: now - 3600, ttlSeconds: 60 });
    const err = await errorOf(send({ authorization: `Bearer ${token}` }));
    expect(err.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(err.details).toBe('The bearer token has expired');
  });

  it('maps a valid own token to its subject: its task is not-found to another subject', async () => {
    const keys = new KeyStore({ dataDir: s.dataDir });
    const as = async (subject: string) => ({ authorization: `Bearer ${await issueAccessToken(keys, { issuer: s.http, audience: s.http, subject })}` });
    const { response } = await send(await as('alice'));
    const id = response.task!.id;
    await client.unary('GetTask', { id }, await as('alice'));
    const err = await errorOf(client.unary('GetTask', { id }, await as('bob')));
    expect(err.code).toBe(grpc.status.NOT_FOUND);
  });

  it("checks an own token's RFC 8707 audience against the agent the call names (tenant, else the default agent)", async () => {
    const keys = new KeyStore({ dataDir: s.dataDir });
    const forEcho = { authorization: `Bearer ${await issueAccessToken(keys, { issuer: s.http, audience: `${s.http}/a2a/echo`, subject: 'alice' })}` };
    const own = await client.unary<{ task?: { id: string } }>('SendMessage', { tenant: 'echo', message: userMessage('hi') }, forEcho);
    expect(own.response.task?.id).toBeDefined();
    // echo is the default agent, so a call without a tenant is for it too
    expect((await send(forEcho)).response.task?.id).toBeDefined();
    const other = await errorOf(client.unary('SendMessage', { tenant: 'table-expert', message: userMessage('hi') }, forEcho));
    expect(other.code).toBe(grpc.status.UNAUTHENTICATED);
  });
});
