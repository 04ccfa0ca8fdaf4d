/**
 * MCP requests with malformed params get InvalidParams (-32602) with one short sentence naming the
 * field, never -32603 with the SDK's raw schema issue list (issue 19), on both eras' headers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server.js';
import { post } from './clients.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ agents: [{ id: 'echo', builtin: 'echo' }] });
});
afterAll(async () => s?.stop());

const CASES: Array<[string, unknown, string]> = [
  ['initialize', { protocolVersion: 5, capabilities: {}, clientInfo: { name: 't', version: '1' } }, "'params.protocolVersion' must be a string"],
  ['initialize', {}, "'params.protocolVersion' must be a string"],
  ['initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't' } }, "'params.clientInfo.version' must be a string"],
  ['resources/read', {}, "'params.uri' must be a string"],
  ['resources/read', { uri: 5 }, "'params.uri' must be a string"],
  ['tools/call', { name: 5 }, "'params.name' must be a string"],
  ['tools/call', { name: 'echo_echo', arguments: [1] }, "'params.arguments' must be an object"],
  ['resources/read', 'x', "'params' must be an object"],
];

describe('MCP params validation', () => {
  it.each(CASES)('%s %j → -32602', async (method, params, problem) => {
    for (const headers of [{}, { 'mcp-protocol-version': '2025-06-18' }] as Array<Record<string, string>>) {
      const r = await post(`${s.http}/mcp`, { jsonrpc: '2.0', id: 9, method, params }, headers);
      expect(r.json.id).toBe(9);
      expect(r.json.error).toEqual({ code: -32602, message: `Invalid params for ${method}: ${problem}` });
    }
  });

  it('a well-formed initialize still reaches the SDK', async () => {
    const r = await post(`${s.http}/mcp`, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    expect(r.json.result.serverInfo.name).toBeTruthy();
  });
});
