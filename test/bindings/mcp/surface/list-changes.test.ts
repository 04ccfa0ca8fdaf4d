/**
 * Agents added or removed after start change what the MCP face lists: modern clients hear
 * `notifications/tools/list_changed` and `notifications/resources/list_changed` on their
 * `subscriptions/listen` stream (official v2 client), later lists show the new set, and a legacy
 * session (v1 client that declared elicitation, so it has one) is told and then retired.
 */
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegisteredAgent } from '../../../../src/core/agents/agent-registry.js';
import { startTestServer, type TestServer } from '../../../support/server.js';

const waitFor = async (what: string, cond: () => boolean, ms = 5000) => {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('MCP list changes when agents come and go', () => {
  let s: TestServer;
  let second: RegisteredAgent;
  beforeAll(async () => {
    s = await startTestServer({
      auth: { mode: 'none' },
      agents: [
        { id: 'echo', builtin: 'echo' },
        { id: 'echo2', builtin: 'echo' },
      ],
    });
    second = s.registry.get('echo2')!;
  });
  afterAll(async () => s?.stop());

  it('advertises listChanged for tools and resources', async () => {
    const c = new V2Client({ name: 't', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await c.connect(new V2Transport(new URL(`${s.http}/mcp`)));
    expect(c.getServerCapabilities()?.tools?.listChanged).toBe(true);
    expect(c.getServerCapabilities()?.resources?.listChanged).toBe(true);
    await c.close();
  });

  it('announces a removed and a re-added agent on subscriptions/listen, and lists the new set', async () => {
    const c = new V2Client({ name: 't', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await c.connect(new V2Transport(new URL(`${s.http}/mcp`)));
    expect(c.getProtocolEra()).toBe('modern');
    const heard: string[] = [];
    c.setNotificationHandler('notifications/tools/list_changed', () => void heard.push('tools'));
    c.setNotificationHandler('notifications/resources/list_changed', () => void heard.push('resources'));
    const sub = await c.listen({ toolsListChanged: true, resourcesListChanged: true });
    expect(sub.honoredFilter.toolsListChanged).toBe(true);
    expect((await c.listTools()).tools.map((t) => t.name)).toContain('echo2_echo');

    s.registry.remove('echo2');
    await waitFor('list_changed after removal', () => heard.includes('tools') && heard.includes('resources'));
    expect((await c.listTools()).tools.map((t) => t.name)).not.toContain('echo2_echo');
    expect((await c.listResources()).resources.map((r) => r.uri)).not.toContain('agentport://agents/echo2/card');
    const gone = await c.callTool({ name: 'echo2_echo', arguments: { message: 'hi' } }).catch((e: Error) => e);
    expect(gone instanceof Error ? gone.message : JSON.stringify(gone)).toMatch(/echo2_echo/);

    heard.length = 0;
    s.registry.add(second);
    await waitFor('list_changed after adding', () => heard.includes('tools'));
    expect((await c.listTools()).tools.map((t) => t.name)).toContain('echo2_echo');
    await sub.close();
    await c.close();
  });

  it('tells a legacy session (v1 client with elicitation) and retires it; a new session lists the new set', async () => {
    const c = new V1Client({ name: 'legacy', version: '1' }, { capabilities: { elicitation: {} } });
    const transport = new V1Transport(new URL(`${s.http}/mcp`));
    await c.connect(transport);
    expect(transport.sessionId).toBeDefined();
    let toolsChanged = 0;
    c.setNotificationHandler(ToolListChangedNotificationSchema, () => void (toolsChanged += 1));
    expect((await c.listTools()).tools.map((t) => t.name)).toContain('echo2_echo');
    await new Promise((r) => setTimeout(r, 200)); // the client's GET stream, which carries the notification

    s.registry.remove('echo2');
    await waitFor('tools/list_changed on the session', () => toolsChanged > 0);
    await expect(c.listTools()).rejects.toThrow(/404|not found/i);
    await c.close().catch(() => {});

    const fresh = new V1Client({ name: 'legacy', version: '1' }, { capabilities: { elicitation: {} } });
    await fresh.connect(new V1Transport(new URL(`${s.http}/mcp`)));
    expect((await fresh.listTools()).tools.map((t) => t.name)).not.toContain('echo2_echo');
    await fresh.close();
    s.registry.add(second);
  });
});

describe('MCP streams at shutdown', () => {
  it('ends an open subscriptions/listen stream gracefully when the server stops', async () => {
    const s = await startTestServer({ auth: { mode: 'none' }, agents: [{ id: 'echo', builtin: 'echo' }] });
    const c = new V2Client({ name: 't', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await c.connect(new V2Transport(new URL(`${s.http}/mcp`)));
    const sub = await c.listen({ toolsListChanged: true });
    const started = Date.now();
    await s.stop();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await sub.closed).toBe('graceful');
  }, 20_000);
});
