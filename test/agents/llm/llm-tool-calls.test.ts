/**
 * What an LLM agent's tool call leaves behind and where it lands, on a real server: a refused tool
 * call (a missing scope, a quota) writes the same audit record as the caller's own refused SendMessage (the audit log keeps
 * security events; an admitted call is a usage record, docs/decisions/0016-usage-quotas-audit.md);
 * a remote MCP server's tools (a v2 SDK server on loopback) become the model's tools one to one, as
 * the remote declares them, and the model's arguments reach the remote tool.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../../src/store/audit-store.js';
import { openSqliteStore } from '../../../src/store/index.js';
import { modernClient } from '../../bindings/mcp/clients.js';
import { readSse, rpc, startTestServer, userMessage, type TestServer } from '../../support/server.js';
import { startModernRemote, type RemoteServer } from '../mcp-remote/remote-servers.js';
import { ScriptedModel, type SeenRequest } from './scripted-models.js';

const ALICE = 'alice-key-0123456789abcdef';
const BOB = 'bob-key-0123456789abcdef';
const CAROL = 'carol-key-0123456789abcdef';

function script(r: SeenRequest) {
  if (r.lastUserText === 'echo please') return r.toolResults.length === 0 ? { toolCalls: [{ name: 'echo__echo', arguments: { request: 'checked' } }] } : { text: 'echoed' };
  if (r.lastUserText === 'add please') return r.toolResults.length === 0 ? { toolCalls: [{ name: 'calc__add', arguments: { a: 19, b: 23 } }] } : { text: 'added' };
  return { text: 'no tools needed' };
}

describe('an LLM agent’s tool calls', () => {
  let model: ScriptedModel;
  let remote: RemoteServer;
  let s: TestServer;
  let stopped = false;

  beforeAll(async () => {
    model = new ScriptedModel('openai', script);
    remote = await startModernRemote();
    s = await startTestServer(
      {
        auth: {
          mode: 'required',
          apiKeys: [
            { key: ALICE, subject: 'alice', scopes: ['a2a:publish', 'a2a:discover', 'echo:use'] },
            { key: BOB, subject: 'bob', scopes: ['a2a:publish', 'a2a:discover'] },
            { key: CAROL, subject: 'carol', scopes: ['a2a:publish', 'a2a:discover', 'echo:use'] },
          ],
        },
        // carol may call echo once a minute
        quotas: [{ id: 'carol-echo', match: { subject: 'carol', agent: 'echo' }, requests: { limit: 1, window: 60_000 } }],
        agents: [
          { id: 'assistant', llm: { provider: 'openai', baseUrl: await model.listen(), model: 'gpt-scripted', apiKey: 'sk-test', instructions: 'Use the tools.', tools: ['echo', 'calc'] } },
          { id: 'echo', builtin: 'echo', skills: { echo: { scopes: ['echo:use'] } } },
          { id: 'calc', mcp: { url: remote.url, era: 'modern', allowlist: ['127.0.0.1'] } },
        ],
      },
      { keepData: true },
    );
  }, 60_000);

  afterAll(async () => {
    if (!stopped) await s?.stop();
    await model?.close();
    await remote?.close();
  });

  async function run(text: string, key: string) {
    const res = await fetch(`${s.http}/a2a/assistant`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-api-key': key },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: userMessage(text) } }),
    });
    expect(res.status).toBe(200);
    const events = (await readSse(res)).map((e) => e.data.result);
    expect(events.at(-1).statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    return events.flatMap((e) => e.statusUpdate?.status.message?.parts.filter((p: any) => p.mediaType === 'application/vnd.agentport.llm-step+json').map((p: any) => p.data) ?? []);
  }

  it('each tool of a remote MCP server is one model tool as the remote declares it, and a call reaches it with the model’s arguments', async () => {
    const direct = await modernClient(remote.url);
    const declared = (await direct.listTools()).tools;
    await direct.close();
    expect(declared.length).toBeGreaterThan(3);

    const before = model.requests.length;
    const steps = await run('add please', ALICE);
    const seen = model.requests.slice(before);
    const offered = (seen[0]!.body.tools as any[]).map((t) => t.function).filter((f) => f.name.startsWith('calc__'));
    expect(offered.map((f) => f.name).sort()).toEqual(declared.map((t) => `calc__${t.name}`).sort());
    for (const tool of declared) {
      const f = offered.find((o) => o.name === `calc__${tool.name}`);
      expect(f.parameters, tool.name).toEqual(tool.inputSchema);
      expect(f.description, tool.name).toContain(tool.description);
    }

    expect(remote.record.calls).toEqual(['add']);
    const call = steps.find((r) => r.kind === 'tool_call');
    expect(call).toMatchObject({ agentId: 'calc', skillId: 'add' });
    const result = JSON.parse(seen[1]!.toolResults[0]!.content);
    expect(result).toMatchObject({ source: 'calc/add', status: 'completed', taskId: call.taskId });
    expect(JSON.stringify(result.data)).toContain('42');
  }, 60_000);

  it('a refused tool call leaves the audit record of a refused SendMessage by the same caller; an admitted one none', async () => {
    const own = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('hi') }, { 'x-api-key': BOB });
    expect(own.body.error).toBeDefined();
    const refused = (await run('echo please', BOB)).filter((r) => r.kind === 'tool_result');
    expect(refused.map((r) => r.status)).toEqual(['refused']);
    // carol's one call a minute: her own, then the run's tool call and her next own call (streaming,
    // as the run calls its tools) are over the quota.
    expect((await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('hi') }, { 'x-api-key': CAROL })).body.result).toBeDefined();
    const overQuota = (await run('echo please', CAROL)).filter((r) => r.kind === 'tool_result');
    expect(overQuota.map((r) => r.status)).not.toContain('completed');
    expect((await rpc(`${s.http}/a2a/echo`, 'SendStreamingMessage', { message: userMessage('hi') }, { 'x-api-key': CAROL })).body.error).toBeDefined();
    const admitted = (await run('echo please', ALICE)).filter((r) => r.kind === 'tool_result');
    expect(admitted.map((r) => r.status)).toEqual(['completed']);

    // The audit log is written behind the answer; stopping the server flushes it.
    await s.stop();
    stopped = true;
    const store = await openSqliteStore({ file: path.join(s.dataDir, 'agentport.db') });
    let records: AuditRecord[];
    try {
      records = await store.audit.list({ limit: 1000 });
    } finally {
      await store.close();
    }
    const shape = ({ action, outcome, actor, actorClient, target, details }: AuditRecord) => ({ action, outcome, actor, actorClient, target, details });
    const bobs = records.filter((r) => r.actor === 'bob').map(shape);
    expect(bobs).toHaveLength(2);
    expect(bobs[0]).toMatchObject({ action: 'authz.denied', outcome: 'denied', target: 'agent:echo', details: { requiredScopes: expect.arrayContaining(['echo:use']) } });
    expect(bobs[1]).toEqual(bobs[0]);
    // The Retry-After of each refusal depends on when it came; the rest is the same.
    const carols = records.filter((r) => r.actor === 'carol').map((r) => ({ ...shape(r), details: { ...r.details, retryAfterSeconds: 'any' } }));
    expect(carols).toHaveLength(2);
    expect(carols[0]).toMatchObject({ action: 'quota.refused', outcome: 'denied', target: 'agent:echo', details: { quotaId: 'carol-echo' } });
    expect(carols[0]).toEqual(carols[1]);
    expect(records.filter((r) => r.actor === 'alice')).toEqual([]);
  }, 60_000);
});
