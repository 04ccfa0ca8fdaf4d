/**
 * `agents[].mcp.auth: { kind: signed-identity }` (ADR 0034): a tool call reaches the remote MCP
 * server with a JWT naming the caller; the session's own requests (initialize, tools/list, the
 * initialized notification) carry Agentport's service identity (`sub` = the issuer, no scope),
 * never the identity of the caller whose call opened the session. Each JWT is verified here with
 * jose against the front's /.well-known/jwks.json, independently of the signing code.
 */
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/index.js';
import { rpc, startTestServer, type TestServer } from '../../support/server.js';
import { startLegacyRemote, startModernRemote, type RemoteRecord, type RemoteServer } from './remote-servers.js';

const ALICE_KEY = 'alice-mcp-signed-identity-key-01';
const BOB_KEY = 'bob-mcp-signed-identity-key-0001';
const OPS_KEY = 'ops-mcp-signed-identity-key-0001';

let remote: RemoteServer;
let front: TestServer;
const record: RemoteRecord = { authorization: [], cancelled: [], started: [], calls: [], requests: [] };

beforeAll(async () => {
  remote = await startModernRemote(0, record);
  const mcp = { url: remote.url, allowlist: ['127.0.0.1'], auth: { kind: 'signed-identity', ttlSeconds: 30 } };
  front = await startTestServer({
    agents: [
      { id: 'modern', mcp: { ...mcp, era: 'modern' } },
      { id: 'legacy', mcp: { ...mcp, era: 'legacy' } },
    ],
    auth: {
      mode: 'required',
      apiKeys: [
        { key: ALICE_KEY, subject: 'alice', scopes: ['a2a:discover', 'a2a:publish'] },
        { key: BOB_KEY, subject: 'bob', scopes: ['a2a:publish'] },
        { key: OPS_KEY, subject: 'ops', scopes: ['admin'] },
      ],
    },
  });
});
afterAll(async () => {
  await front?.stop();
  await remote?.close();
});

const add = (agent: string, key: string) =>
  rpc(
    `${front.http}/a2a/${agent}`,
    'SendMessage',
    { message: { messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'ROLE_USER', parts: [{ data: { tool: 'add', arguments: { a: 2, b: 3 } } }] } },
    { 'x-api-key': key },
  );

async function verified(authorization: string | undefined) {
  const jwks = createRemoteJWKSet(new URL(`${front.http}/.well-known/jwks.json`));
  const origin = new URL(remote.url).origin;
  const { payload } = await jwtVerify((authorization ?? '').replace(/^Bearer /, ''), jwks, {
    issuer: front.http,
    audience: origin,
    typ: 'agentport-caller+jwt',
    algorithms: ['ES256'],
    requiredClaims: ['exp', 'iat', 'jti', 'sub'],
  });
  return payload;
}

describe.each(['modern', 'legacy'])('signed identity to a remote MCP server (%s era)', (agent) => {
  it("a tool call carries the caller's identity; the session's requests carry Agentport's own", async () => {
    record.requests!.length = 0;
    const r = await add(agent, ALICE_KEY);
    expect(r.body.result?.task?.status?.state).toBe('TASK_STATE_COMPLETED');
    const requests = [...record.requests!];
    const calls = requests.filter((q) => q.method === 'tools/call');
    expect(calls.length).toBe(1);
    const claims = await verified(calls[0]!.authorization);
    expect(claims.sub).toBe('alice');
    expect(String(claims.scope).split(' ').sort()).toEqual(['a2a:discover', 'a2a:publish']);
    expect(claims.exp! - claims.iat!).toBe(30);
    expect(calls[0]!.authorization).not.toContain(ALICE_KEY);

    // Every other request (those the agent's start made included) is the service's, never alice's.
    record.requests!.length = 0;
    const r2 = await add(agent, BOB_KEY);
    expect(r2.body.result?.task?.status?.state).toBe('TASK_STATE_COMPLETED');
    const bobCall = record.requests!.find((q) => q.method === 'tools/call');
    expect((await verified(bobCall?.authorization)).sub).toBe('bob');
    for (const q of [...requests, ...record.requests!].filter((x) => x.method !== 'tools/call')) {
      const c = await verified(q.authorization);
      expect({ method: q.method, sub: c.sub, scope: c.scope }).toEqual({ method: q.method, sub: front.http, scope: '' });
    }
  });
});

describe('usage records of calls made with a signed identity (issue 27)', () => {
  it('name whom each call went out as at the remote: the caller, vouched for by the JWT issuer the remote verified', async () => {
    record.requests!.length = 0;
    expect((await add('modern', BOB_KEY)).body.result?.task?.status?.state).toBe('TASK_STATE_COMPLETED');
    const sent = await verified(record.requests!.find((q) => q.method === 'tools/call')?.authorization);
    const r = await fetch(`${front.http}/api/v1/usage?by=agent,subject,remoteSubject,remoteIssuer&agent=modern&subject=bob`, { headers: { 'x-api-key': OPS_KEY } });
    expect(r.status).toBe(200);
    const keys = ((await r.json()) as any).groups.map((g: any) => g.key);
    expect(keys).toEqual([{ agent: 'modern', subject: 'bob', remoteSubject: sent.sub, remoteIssuer: sent.iss }]);
  });
});

describe('a session reopened by a tool call (a stateful remote that restarted)', () => {
  it('initializes as the service, not as the caller whose call reopened it', async () => {
    const legacyRecord: RemoteRecord = { authorization: [], cancelled: [], started: [], calls: [], requests: [] };
    let legacy = await startLegacyRemote(0, legacyRecord);
    const ap = await startTestServer({
      agents: [{ id: 'stateful', mcp: { url: legacy.url, era: 'legacy', allowlist: ['127.0.0.1'], auth: { kind: 'signed-identity' } } }],
      auth: { mode: 'required', apiKeys: [{ key: ALICE_KEY, subject: 'alice', scopes: ['a2a:publish'] }] },
    });
    try {
      // The remote forgets its sessions: the next call meets a 404, reconnects and calls again.
      await legacy.close();
      legacy = await startLegacyRemote(legacy.port, legacyRecord);
      legacyRecord.requests!.length = 0;
      const r = await rpc(`${ap.http}/a2a/stateful`, 'SendMessage', { message: { messageId: 'm-reopen', role: 'ROLE_USER', parts: [{ data: { tool: 'add', arguments: { a: 1, b: 1 } } }] } }, { 'x-api-key': ALICE_KEY });
      expect(r.body.result?.task?.status?.state).toBe('TASK_STATE_COMPLETED');
      const seen = legacyRecord.requests!.map((q) => ({ method: q.method, sub: decodeJwt((q.authorization ?? '').replace(/^Bearer /, '')).sub }));
      expect(seen.map((s) => s.method)).toContain('initialize');
      for (const s of seen) expect(s).toEqual({ method: s.method, sub: s.method === 'tools/call' ? 'alice' : ap.http });
    } finally {
      await ap.stop();
      await legacy.close();
    }
  });
});

describe('agents[].mcp.auth in the config', () => {
  it('refuses an Authorization header next to it, without quoting the header', () => {
    const input = { agents: [{ id: 'x', mcp: { url: 'http://127.0.0.1:1/mcp', headers: { Authorization: 'Bearer s3cret' }, auth: { kind: 'signed-identity' } } }] };
    expect(() => parseConfig(input, { env: {}, cwd: '/' })).toThrow(/agents\[0\]\.mcp\.auth/);
    try {
      parseConfig(input, { env: {}, cwd: '/' });
    } catch (e) {
      expect(String((e as Error).message)).not.toContain('s3cret');
    }
  });
});
