import { fileURLToPath } from 'node:url';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTaskStateCodec } from '../../../../src/bindings/mcp/tools/input-required.js';
import { rpc, startTestServer, type TestServer } from '../../../support/server.js';
import { envelope, modernHeaders, post } from '../clients.js';

const PROBE = fileURLToPath(new URL('../../../fixtures/agents/probe-agent.ts', import.meta.url));
const ALICE = 'k-alice-0123456789abcdef';
const BOB = 'k-bob-0123456789abcdefgh';

const withElicitation = (extra: Record<string, unknown> = {}) => envelope({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } }, ...extra });

const callProbe = (url: string, id: number, message: string, key: string, meta: Record<string, unknown> = withElicitation(), extra: Record<string, unknown> = {}) =>
  post(
    url,
    { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'probe_probe', arguments: { message }, _meta: meta, ...extra } },
    { ...modernHeaders('tools/call', 'probe_probe'), authorization: `Bearer ${key}` },
  );

function decodeState(state: string): any {
  const [, body] = state.split('.');
  return JSON.parse(Buffer.from(body!, 'base64url').toString('utf8'));
}

describe('INPUT_REQUIRED as MRTR (2026-07-28)', () => {
  let s: TestServer;
  let url: string;
  beforeAll(async () => {
    s = await startTestServer({
      agents: [
        { id: 'probe', module: PROBE },
        { id: 'echo', builtin: 'echo' },
      ],
      auth: {
        apiKeys: [
          { key: ALICE, subject: 'alice' },
          { key: BOB, subject: 'bob' },
        ],
      },
    });
    url = `${s.http}/mcp`;
  });
  afterAll(async () => s?.stop());

  it('asks the question through the official client and continues the same A2A task with the answer', async () => {
    const client = new V2Client({ name: 'mrtr-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } });
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (req) => {
      asked.push(req.params.message);
      return { action: 'accept', content: { answer: 'here is more' } };
    });
    await client.connect(new V2Transport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${ALICE}` } } }));
    const r: any = await client.callTool({ name: 'probe_probe', arguments: { message: 'input' } });
    await client.close();
    expect(asked).toEqual(['Tell me more.']);
    expect(r.isError).toBeFalsy();
    expect(r.content[0].text).toBe('here is more');
    const taskId = r._meta['agentport/taskId'];
    const got = await rpc(`${s.http}/a2a/probe`, 'GetTask', { id: taskId, historyLength: 10 }, { authorization: `Bearer ${ALICE}` });
    expect(got.body.result.status.state).toBe('TASK_STATE_COMPLETED');
    const texts = got.body.result.history.filter((m: any) => m.role === 'ROLE_USER').map((m: any) => m.parts[0].text);
    expect(texts).toEqual(['input', 'here is more']);
  });

  it('returns input_required with an elicitation and a signed state naming task, agent, caller and expiry', async () => {
    const first = await callProbe(url, 1, 'input', ALICE);
    expect(first.status).toBe(200);
    const result = first.json.result;
    expect(result.resultType).toBe('input_required');
    expect(result.inputRequests.answer.method).toBe('elicitation/create');
    expect(result.inputRequests.answer.params.message).toBe('Tell me more.');
    expect(result.inputRequests.answer.params.requestedSchema.required).toEqual(['answer']);
    const sealed = decodeState(result.requestState);
    expect(sealed.p).toMatchObject({ agentId: 'probe', tool: 'probe_probe', sub: 'alice' });
    expect(sealed.exp).toBeGreaterThan(Date.now() / 1000);
    const task = await rpc(`${s.http}/a2a/probe`, 'GetTask', { id: sealed.p.taskId }, { authorization: `Bearer ${ALICE}` });
    expect(task.body.result.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('refuses a tampered requestState and leaves the task waiting', async () => {
    const first = await callProbe(url, 2, 'input', ALICE);
    const state: string = first.json.result.requestState;
    const [v, body, mac] = state.split('.');
    const payload = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8'));
    payload.p.taskId = 'someone-elses-task';
    const forged = `${v}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
    const answer = { answer: { action: 'accept', content: { answer: 'x' } } };
    const retry = await callProbe(url, 3, 'input', ALICE, withElicitation(), { inputResponses: answer, requestState: forged });
    expect(retry.json.error.code).toBe(-32602);
    expect(retry.json.error.message).toBe('Invalid or expired requestState');
    const task = await rpc(`${s.http}/a2a/probe`, 'GetTask', { id: decodeState(state).p.taskId }, { authorization: `Bearer ${ALICE}` });
    expect(task.body.result.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it("refuses another caller's requestState", async () => {
    const first = await callProbe(url, 4, 'input', ALICE);
    const answer = { answer: { action: 'accept', content: { answer: 'from bob' } } };
    const retry = await callProbe(url, 5, 'input', BOB, withElicitation(), { inputResponses: answer, requestState: first.json.result.requestState });
    expect(retry.json.error.code).toBe(-32602);
    expect(retry.json.error.data.reason).toBe('invalid_request_state');
  });

  it('continues the task on a raw retry with the answer, and cancels it when the user declines', async () => {
    const first = await callProbe(url, 6, 'input', ALICE);
    const state: string = first.json.result.requestState;
    const taskId = decodeState(state).p.taskId;
    const ok = await callProbe(url, 7, 'input', ALICE, withElicitation(), { inputResponses: { answer: { action: 'accept', content: { answer: 'the answer' } } }, requestState: state });
    expect(ok.json.result.content[0].text).toBe('the answer');
    expect(ok.json.result._meta['agentport/taskId']).toBe(taskId);

    const again = await callProbe(url, 8, 'input', ALICE);
    const declinedTask = decodeState(again.json.result.requestState).p.taskId;
    const no = await callProbe(url, 9, 'input', ALICE, withElicitation(), { inputResponses: { answer: { action: 'decline' } }, requestState: again.json.result.requestState });
    expect(no.json.result.isError).toBe(true);
    expect(no.json.result.content[0].text).toContain('declined');
    const task = await rpc(`${s.http}/a2a/probe`, 'GetTask', { id: declinedTask }, { authorization: `Bearer ${ALICE}` });
    expect(task.body.result.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('refuses a valid state replayed on another tool', async () => {
    const first = await callProbe(url, 11, 'input', ALICE);
    const retry = await post(
      url,
      {
        jsonrpc: '2.0',
        id: 12,
        method: 'tools/call',
        params: { name: 'echo_echo', arguments: { message: 'x' }, _meta: withElicitation(), inputResponses: { answer: { action: 'accept', content: { answer: 'y' } } }, requestState: first.json.result.requestState },
      },
      { ...modernHeaders('tools/call', 'echo_echo'), authorization: `Bearer ${ALICE}` },
    );
    expect(retry.json.result.isError).toBe(true);
    expect(retry.json.result.content[0].text).toContain('another tool or caller');
  });

  it('keeps the isError guidance for a modern client that takes no elicitation', async () => {
    const r = await callProbe(url, 10, 'input', ALICE, envelope());
    expect(r.json.result.resultType).not.toBe('input_required');
    expect(r.json.result.isError).toBe(true);
    expect(r.json.result.structuredContent.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });
});

describe('the requestState codec', () => {
  const ctx = (subject: string) => ({ mcpReq: { method: 'tools/call' }, http: { authInfo: { token: '', clientId: subject, scopes: [] } } }) as any;
  const codec = createTaskStateCodec({ key: 'k'.repeat(32), ttlSeconds: 1, subjectOf: (a) => a?.clientId ?? '' });
  const payload = { v: 1 as const, taskId: 't', contextId: 'c', agentId: 'a', tool: 'a_s', sub: 'alice' };

  it('round-trips a payload for the same caller', async () => {
    const sealed = await codec.mint(payload, ctx('alice'));
    expect(await codec.verify(sealed, ctx('alice'))).toEqual(payload);
  });

  it('rejects an expired state', async () => {
    // A fake clock: only Date moves, so the crypto underneath still settles on its own.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const sealed = await codec.mint(payload, ctx('alice'));
      vi.setSystemTime(Date.now() + 2100);
      await expect(codec.verify(sealed, ctx('alice'))).rejects.toThrow('expired');
    } finally {
      vi.useRealTimers();
    }
  });

  it('rejects a state sealed with another key', async () => {
    const other = createTaskStateCodec({ key: 'o'.repeat(32), subjectOf: (a) => a?.clientId ?? '' });
    await expect(codec.verify(await other.mint(payload, ctx('alice')), ctx('alice'))).rejects.toThrow('mac');
  });
});

describe('INPUT_REQUIRED as elicitation in legacy sessions (2025-era clients that declare it)', () => {
  let s: TestServer;
  let url: string;
  beforeAll(async () => {
    s = await startTestServer({
      agents: [{ id: 'probe', module: PROBE }],
      auth: {
        apiKeys: [
          { key: ALICE, subject: 'alice' },
          { key: BOB, subject: 'bob' },
        ],
      },
    });
    url = `${s.http}/mcp`;
  });
  afterAll(async () => s?.stop());

  async function elicitingLegacyClient(answer: (message: string) => any): Promise<{ client: V1Client; transport: V1Transport }> {
    const client = new V1Client({ name: 'legacy-elicit', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (req) => answer(req.params.message));
    const transport = new V1Transport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${ALICE}` } } });
    await client.connect(transport);
    return { client, transport };
  }

  it('asks through elicitation/create on the call and continues the same task (v1 SDK client)', async () => {
    const asked: string[] = [];
    const { client, transport } = await elicitingLegacyClient((m) => (asked.push(m), { action: 'accept', content: { answer: 'legacy answer' } }));
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const r: any = await client.callTool({ name: 'probe_probe', arguments: { message: 'input' } });
    expect(asked).toEqual(['Tell me more.']);
    expect(r.isError).toBeFalsy();
    expect(r.content[0].text).toBe('legacy answer');
    const got = await rpc(`${s.http}/a2a/probe`, 'GetTask', { id: r._meta['agentport/taskId'] }, { authorization: `Bearer ${ALICE}` });
    expect(got.body.result.status.state).toBe('TASK_STATE_COMPLETED');
    await client.close();
  });

  it('does the same for the v2 client in legacy mode', async () => {
    const client = new V2Client({ name: 'v2-legacy-elicit', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' }, capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { answer: 'v2 legacy answer' } }));
    await client.connect(new V2Transport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${ALICE}` } } }));
    expect(client.getProtocolEra()).toBe('legacy');
    const r: any = await client.callTool({ name: 'probe_probe', arguments: { message: 'input' } });
    expect(r.isError).toBeFalsy();
    expect(r.content[0].text).toBe('v2 legacy answer');
    await client.close();
  });

  it('cancels the task when the user declines', async () => {
    const { client } = await elicitingLegacyClient(() => ({ action: 'decline' }));
    const r: any = await client.callTool({ name: 'probe_probe', arguments: { message: 'input' } });
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toContain('declined');
    const got = await rpc(`${s.http}/a2a/probe`, 'GetTask', { id: r._meta['agentport/taskId'] }, { authorization: `Bearer ${ALICE}` });
    expect(got.body.result.status.state).toBe('TASK_STATE_CANCELED');
    await client.close();
  });

  it('answers 404 to a session id used by another caller or unknown', async () => {
    const { client, transport } = await elicitingLegacyClient(() => ({ action: 'decline' }));
    const list = { jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} };
    const headers = { 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-11-25' };
    expect((await post(url, list, { ...headers, authorization: `Bearer ${ALICE}` })).status).toBe(200);
    expect((await post(url, list, { ...headers, authorization: `Bearer ${BOB}` })).status).toBe(404);
    expect((await post(url, list, { ...headers, 'mcp-session-id': 'nope', authorization: `Bearer ${ALICE}` })).status).toBe(404);
    await client.close();
  });

  it('keeps clients without elicitation stateless (no session id)', async () => {
    const r = await post(
      url,
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } },
      { authorization: `Bearer ${ALICE}` },
    );
    expect(r.status).toBe(200);
    expect(r.headers.get('mcp-session-id')).toBeNull();
  });
});
