/**
 * MRTR requestStates across replicas: the HMAC key derives from the signing keys every replica
 * shares through PostgreSQL (KeyStore.derivedSecrets), so a state minted by one replica is
 * accepted by another, and refused by a server with other keys. Real PostgreSQL and Redis.
 */
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSharedTaskStateCodec, type AgentTaskState } from '../../../../src/bindings/mcp/tools/input-required.js';
import { KeyStore, type SharedKeyPersistence } from '../../../../src/core/keys/key-store.js';
import { rpc, startTestServer, type TestServer } from '../../../support/server.js';
import { envelope, modernHeaders, post } from '../clients.js';

const PG_URL = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.AGENTPORT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PROBE = fileURLToPath(new URL('../../../fixtures/agents/probe-agent.ts', import.meta.url));
const ALICE = 'k-alice-0123456789abcdef';
const run = `mcp_state_${Date.now().toString(36)}_${process.pid}`;

const meta = () => envelope({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } });
const call = (base: string, id: number, extra: Record<string, unknown> = {}) =>
  post(
    `${base}/mcp`,
    { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'probe_probe', arguments: { message: 'input' }, _meta: meta(), ...extra } },
    { ...modernHeaders('tools/call', 'probe_probe'), authorization: `Bearer ${ALICE}` },
  );
const answer = (state: string) => ({ requestState: state, inputResponses: { answer: { action: 'accept', content: { answer: 'from the other replica' } } } });

describe('MRTR requestState shared by replicas on one PostgreSQL store', () => {
  const replica = (n: number) => ({
    agents: [{ id: 'probe', module: PROBE }],
    auth: { apiKeys: [{ key: ALICE, subject: 'alice' }] },
    storage: { driver: 'postgres', url: PG_URL, schema: run },
    bus: { driver: 'redis', url: REDIS_URL, prefix: run },
    cluster: { replicaId: `r${n}` },
  });
  let a: TestServer;
  let b: TestServer;
  let other: TestServer;
  beforeAll(async () => {
    a = await startTestServer(replica(1));
    b = await startTestServer(replica(2));
    other = await startTestServer({ agents: [{ id: 'probe', module: PROBE }], auth: { apiKeys: [{ key: ALICE, subject: 'alice' }] } });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop(), other?.stop()]);
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query(`drop schema if exists "${run}" cascade`);
    await c.end();
  });

  it('continues on replica B a task whose input_required was minted by replica A', async () => {
    const first = await call(a.http, 1);
    expect(first.json.result.resultType).toBe('input_required');
    const state: string = first.json.result.requestState;
    const second = await call(b.http, 2, answer(state));
    expect(second.json.error, second.text).toBeUndefined();
    expect(second.json.result.isError ?? false).toBe(false);
    expect(second.json.result.content[0].text).toBe('from the other replica');
    const taskId = second.json.result._meta['agentport/taskId'];
    const task = await rpc(`${a.http}/a2a/probe`, 'GetTask', { id: taskId, historyLength: 10 }, { authorization: `Bearer ${ALICE}` });
    expect(task.body.result.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('refuses the same state on a server with other keys (-32602 invalid_request_state)', async () => {
    const first = await call(a.http, 3);
    const r = await call(other.http, 4, answer(first.json.result.requestState));
    expect(r.json.error.code).toBe(-32602);
    expect(r.json.error.data.reason).toBe('invalid_request_state');
  });
});

describe('derived requestState keys', () => {
  /** The persistence replicas share (the store's signing_keys table), in memory. */
  function sharedRows(): SharedKeyPersistence {
    const rows: Array<{ kid: string; generation: number; privateJwk: string; createdAt: number }> = [];
    return {
      listSigningKeys: async () => [...rows],
      addSigningKey: async (k) => (rows.some((r) => r.generation === k.generation || r.kid === k.kid) ? false : (rows.push(k), true)),
      deleteSigningKeys: async (kids) =>
        void kids.forEach((kid) =>
          rows.splice(
            rows.findIndex((r) => r.kid === kid),
            1,
          ),
        ),
    };
  }
  const ctx = { mcpReq: { method: 'tools/call' }, http: { authInfo: undefined } } as never;
  const payload: AgentTaskState = { v: 1, taskId: 't', contextId: 'c', agentId: 'probe', tool: 'probe_probe', sub: 'anonymous' };

  it('are the same on two KeyStores sharing persistence, differ per label, and keep the retired key after a rotation', async () => {
    const shared = sharedRows();
    const one = new KeyStore({ shared });
    const two = new KeyStore({ shared });
    const [k1] = await one.derivedSecrets('mcp-request-state');
    expect(await two.derivedSecrets('mcp-request-state')).toEqual([k1]);
    expect((await one.derivedSecrets('other-use'))[0]).not.toEqual(k1);
    await one.rotate();
    const after = await one.derivedSecrets('mcp-request-state');
    expect(after).toHaveLength(2);
    expect(after[1]).toEqual(k1);
    expect(after[0]).not.toEqual(k1);
  });

  it('verify a state sealed before a rotation, refuse one sealed with an unknown key', async () => {
    const shared = sharedRows();
    const keys = new KeyStore({ shared });
    const codec = () => createSharedTaskStateCodec({ keys: () => keys.derivedSecrets('mcp-request-state'), refreshMs: 0, subjectOf: () => 'anonymous' });
    const before = await codec().mint(payload, ctx);
    await keys.rotate();
    const now = codec();
    expect(await now.verify(before, ctx)).toEqual(payload);
    const newer = await now.mint(payload, ctx);
    expect(newer).not.toBe(before);
    const stranger = createSharedTaskStateCodec({ keys: () => new KeyStore({ shared: sharedRows() }).derivedSecrets('mcp-request-state'), subjectOf: () => 'anonymous' });
    await expect(stranger.verify(newer, ctx)).rejects.toThrow('mac');
  });
});
