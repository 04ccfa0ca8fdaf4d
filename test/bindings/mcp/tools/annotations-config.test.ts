/** Tool annotations configured per skill (agents[].skills[id].annotations) reach MCP clients. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../support/server.js';

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({
    agents: [{ id: 'echo', builtin: 'echo', skills: { echo: { annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true } } } }],
  });
});

afterAll(async () => {
  await s?.stop();
});

async function legacy(method: string, params: unknown): Promise<any> {
  const res = await fetch(`${s.http}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await res.text();
  const data = text.startsWith('{')
    ? text
    : text
        .split('\n')
        .find((l) => l.startsWith('data: '))!
        .slice('data: '.length);
  return JSON.parse(data);
}

describe('configured tool annotations', () => {
  it('replace the defaults of the skill they name', async () => {
    await legacy('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } });
    const list = await legacy('tools/list', {});
    const tool = list.result.tools.find((t: { name: string }) => t.name === 'echo_echo');
    expect(tool.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
  });
});
