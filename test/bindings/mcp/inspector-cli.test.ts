/**
 * The official MCP Inspector CLI (2.12.0, Node 22) against a running Agentport: it lists and calls
 * the agent tools in both protocol eras (`--protocol-era auto` negotiates 2026-07-28, `legacy`
 * initializes 2025-11-25). A recording forwarder in front shows which era each run really spoke.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server.js';
import { installMcpTools, runMcpTool } from './mcp-tools.js';

/** Forwards to `target` and records each request's method and MCP-Protocol-Version header. */
function recordingForwarder(target: string, seen: Array<{ method: string; version: string | undefined }>): Promise<Server> {
  const t = new URL(target);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      try {
        seen.push({ method: JSON.parse(body.toString()).method, version: req.headers['mcp-protocol-version'] as string | undefined });
      } catch {
        // not JSON (GET, DELETE): nothing to record
      }
      const out = httpRequest({ host: t.hostname, port: t.port, path: req.url, method: req.method, headers: { ...req.headers, host: t.host, connection: 'close' }, agent: false }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      out.on('error', () => res.destroy());
      res.on('close', () => out.destroy());
      out.end(body);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('MCP Inspector CLI against Agentport', () => {
  let s: TestServer;
  let fwd: Server;
  const seen: Array<{ method: string; version: string | undefined }> = [];
  let url: string;
  beforeAll(async () => {
    await installMcpTools();
    s = await startTestServer({ auth: { mode: 'none' }, agents: [{ id: 'echo', builtin: 'echo' }] });
    fwd = await recordingForwarder(s.http, seen);
    url = `http://127.0.0.1:${(fwd.address() as AddressInfo).port}/mcp`;
  }, 300_000);
  afterAll(async () => {
    fwd?.closeAllConnections();
    fwd?.close();
    await s?.stop();
  });

  const inspector = async (era: 'auto' | 'legacy', ...args: string[]) => {
    seen.length = 0;
    const r = await runMcpTool('inspector', ['--cli', url, '--transport', 'http', '--protocol-era', era, '--format', 'json', '-q', ...args]);
    expect(r.code, r.stderr).toBe(0);
    return { result: JSON.parse(r.stdout).result, seen: [...seen] };
  };
  const expectEra = (era: 'auto' | 'legacy', calls: typeof seen, method: string) => {
    const call = calls.find((c) => c.method === method);
    expect(call, JSON.stringify(calls)).toBeDefined();
    if (era === 'auto') expect(call!.version).toBe('2026-07-28');
    else {
      expect(calls.some((c) => c.method === 'initialize')).toBe(true);
      expect(call!.version).toBe('2025-11-25');
    }
  };

  it.each(['auto', 'legacy'] as const)('lists the agent tools with --protocol-era %s', async (era) => {
    const { result, seen: calls } = await inspector(era, '--method', 'tools/list');
    expect(result.tools.map((t: { name: string }) => t.name)).toEqual(['echo_echo']);
    expect(result.tools[0].inputSchema.required).toEqual(['message']);
    expectEra(era, calls, 'tools/list');
  });

  it.each(['auto', 'legacy'] as const)('calls the echo tool with --protocol-era %s', async (era) => {
    const { result, seen: calls } = await inspector(era, '--method', 'tools/call', '--tool-name', 'echo_echo', '--tool-arg', `message=hello ${era}`);
    expect(result.isError ?? false).toBe(false);
    expect(result.content).toEqual([{ type: 'text', text: `hello ${era}` }]);
    expect(result._meta['agentport/state']).toBe('TASK_STATE_COMPLETED');
    expectEra(era, calls, 'tools/call');
  });

  it.each(['auto', 'legacy'] as const)('reads an agent card resource with --protocol-era %s', async (era) => {
    const { result } = await inspector(era, '--method', 'resources/read', '--uri', 'agentport://agents/echo/card');
    expect(result.contents[0].mimeType).toBe('application/json');
    expect(JSON.parse(result.contents[0].text).name).toBe('Echo');
  });

  it('answers a call to an unknown tool with an error the Inspector reports (nonzero exit)', async () => {
    const r = await runMcpTool('inspector', ['--cli', url, '--transport', 'http', '--protocol-era', 'auto', '--format', 'json', '-q', '--method', 'tools/call', '--tool-name', 'no_such_tool']);
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(/no_such_tool/);
  });
});
