/**
 * The plain tools/call path (plain-tool-call.ts) answers exactly as the SDK path does. Each case
 * is sent twice: once plain, once with one harmless extra the plain path declines (a `logLevel`
 * in the modern envelope, an unknown `_meta` key in the legacy one), so the SDK serves it. Task
 * and context ids differ per call and are compared by shape only.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plainToolCallOf } from '../../../../src/bindings/mcp/tools/plain-tool-call.js';
import { startTestServer, type TestServer } from '../../../support/server.js';
import { envelope, modernHeaders, post } from '../clients.js';

const PROBE = fileURLToPath(new URL('../../../fixtures/agents/probe-agent.ts', import.meta.url));
const UUIDISH = /^[0-9a-f-]{36}$/;

/** The result with per-call ids replaced by a marker (after checking they look like ids). */
function normalised(result: any): any {
  const text = JSON.stringify(result).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>');
  return JSON.parse(text);
}

describe('plain tools/call path', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({
      auth: { mode: 'none' },
      agents: [
        { id: 'echo', builtin: 'echo' },
        { id: 'probe', module: PROBE },
      ],
    });
  });
  afterAll(async () => s?.stop());

  const modern = (tool: string, args: Record<string, unknown>, sdk: boolean, id = 1) =>
    post(
      `${s.http}/mcp`,
      { jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: args, _meta: envelope(sdk ? { 'io.modelcontextprotocol/logLevel': 'error' } : {}) } },
      modernHeaders('tools/call', tool),
    );
  const legacy = (tool: string, args: Record<string, unknown>, sdk: boolean, id: number | string = 1) =>
    post(`${s.http}/mcp`, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: args, ...(sdk ? { _meta: { 'example.com/trace': 'x' } } : {}) } }, { 'mcp-protocol-version': '2025-11-25' });

  it.each([
    ['echo_echo', { message: 'hello' }],
    ['echo_echo', { message: 'with data', data: { a: 1, b: [true, null] } }],
    ['probe_probe', { message: 'fail on purpose' }],
    ['probe_probe', { message: 'input' }],
  ])('modern: %s %j answers like the SDK path', async (tool, args) => {
    const plain = await modern(tool, args, false, 11);
    const sdk = await modern(tool, args, true, 11);
    expect(plain.status).toBe(sdk.status);
    expect(plain.json.result._meta['agentport/taskId']).toMatch(UUIDISH);
    expect(normalised(plain.json)).toEqual(normalised(sdk.json));
  });

  it.each([
    ['echo_echo', { message: 'hello' }],
    ['probe_probe', { message: 'fail on purpose' }],
    ['probe_probe', { message: 'input' }],
  ])('legacy: %s %j answers like the SDK path (JSON instead of one SSE event)', async (tool, args) => {
    const plain = await legacy(tool, args, false, 'req-1');
    const sdk = await legacy(tool, args, true, 'req-1');
    expect(plain.headers.get('content-type')).toContain('application/json');
    expect(sdk.headers.get('content-type')).toContain('text/event-stream');
    expect(normalised(plain.json)).toEqual(normalised(sdk.json));
  });

  it('continues a task by taskId on the plain path', async () => {
    const first = await modern('probe_probe', { message: 'input' }, false);
    const taskId = first.json.result.structuredContent.taskId;
    expect(first.json.result._meta['agentport/state']).toBe('TASK_STATE_INPUT_REQUIRED');
    const second = await modern('probe_probe', { message: 'more', taskId }, false, 2);
    expect(second.json.result._meta['agentport/taskId']).toBe(taskId);
    expect(second.json.result._meta['agentport/state']).toBe('TASK_STATE_COMPLETED');
  });

  it('a plain call whose client closes the request cancels its task', async () => {
    const tasksOf = async () => {
      const r = await fetch(`${s.http}/a2a/probe`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }),
      });
      return ((await r.json()) as { result: { tasks: Array<{ id: string; status: { state: string } }> } }).result.tasks;
    };
    const known = new Set((await tasksOf()).map((t) => t.id));
    const ac = new AbortController();
    const body = { jsonrpc: '2.0', id: 21, method: 'tools/call', params: { name: 'probe_probe', arguments: { message: 'hold' }, _meta: envelope() } };
    expect(plainToolCallOf(body, new Headers({ 'content-type': 'application/json', ...modernHeaders('tools/call', 'probe_probe') }))).toBeDefined();
    const call = fetch(`${s.http}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...modernHeaders('tools/call', 'probe_probe') },
      body: JSON.stringify(body),
      signal: ac.signal,
    }).catch((e: Error) => e);
    const started = async () => (await tasksOf()).find((t) => !known.has(t.id) && t.status.state === 'TASK_STATE_WORKING');
    let task = await started();
    for (let i = 0; !task && i < 200; i++) task = (await new Promise((r) => setTimeout(r, 25)), await started());
    expect(task).toBeDefined();
    ac.abort();
    expect(await call).toBeInstanceOf(Error);
    let state = '';
    for (let i = 0; state !== 'TASK_STATE_CANCELED' && i < 200; i++) {
      await new Promise((r) => setTimeout(r, 25));
      state = (await tasksOf()).find((t) => t.id === task!.id)?.status.state ?? '';
    }
    expect(state).toBe('TASK_STATE_CANCELED');
  });

  it('leaves unknown tools, bad arguments and header mismatches to the SDK', async () => {
    expect((await modern('no_such_tool', { message: 'x' }, false)).json.error.code).toBe(-32602);
    const bad = await modern('echo_echo', { message: '' }, false);
    expect(bad.json.result.isError).toBe(true);
    expect(bad.json.result.content[0].text).toMatch(/message/);
    const mismatch = await post(
      `${s.http}/mcp`,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo_echo', arguments: { message: 'x' }, _meta: envelope() } },
      modernHeaders('tools/call', 'probe_probe'),
    );
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.error.code).toBe(-32020);
  });
});

describe('which requests are plain', () => {
  const h = (o: Record<string, string>) => new Headers({ 'content-type': 'application/json', ...o });
  const modernBody = (meta: Record<string, unknown> = envelope(), args: unknown = { message: 'm' }) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't', arguments: args, _meta: meta } });
  const mh = h(modernHeaders('tools/call', 't'));

  it('takes the ordinary modern and legacy calls', () => {
    expect(plainToolCallOf(modernBody(), mh)?.era).toBe('modern');
    expect(plainToolCallOf({ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 't', arguments: { message: 'm' } } }, h({}))?.era).toBe('legacy');
    expect(plainToolCallOf({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 't', arguments: { message: 'm', taskId: 'x', data: {} } } }, h({ 'mcp-protocol-version': '2025-06-18' }))?.era).toBe('legacy');
  });

  it.each([
    ['a progress token', modernBody(envelope({ progressToken: 1 })), mh],
    ['an elicitation-capable client', modernBody(envelope({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } })), mh],
    ['no clientCapabilities', modernBody({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28' }), mh],
    ['a wrong Mcp-Name', modernBody(), h(modernHeaders('tools/call', 'u'))],
    ['a header version that differs', modernBody(), h({ ...modernHeaders('tools/call', 't'), 'mcp-protocol-version': '2025-11-25' })],
    ['an unknown argument', modernBody(envelope(), { message: 'm', extra: 1 }), mh],
    ['an empty message', modernBody(envelope(), { message: '' }), mh],
    ['array data', modernBody(envelope(), { message: 'm', data: [] }), mh],
    ['MRTR answers', { ...modernBody(), params: { ...modernBody().params, inputResponses: {} } }, mh],
    ['a non-JSON content type', modernBody(), new Headers({ ...modernHeaders('tools/call', 't'), 'content-type': 'text/plain' })],
    ['a legacy progress token', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't', arguments: { message: 'm' }, _meta: { progressToken: 'p' } } }, h({})],
    ['a fractional id', { ...modernBody(), id: 1.5 }, mh],
    ['another method', { ...modernBody(), method: 'tools/list' }, mh],
  ])('declines %s', (_l, body, headers) => {
    expect(plainToolCallOf(body, headers)).toBeUndefined();
  });
});
