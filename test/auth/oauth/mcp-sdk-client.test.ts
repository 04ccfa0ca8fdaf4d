/**
 * The official MCP client's own OAuth flow against /mcp, end to end: the 401 names the RFC 9728
 * document, the SDK discovers the authorization server, registers itself (RFC 7591), sends the
 * user to authorize with PKCE and `resource`, exchanges the code and calls a tool. The only
 * stand-in is the user's browser (login and consent over HTTP).
 */
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../../support/server.js';
import { MemoryOAuthProvider } from './memory-oauth-provider.js';
import { browse, startOAuthServer } from './support.js';

const REDIRECT = 'http://127.0.0.1:48123/callback';

describe('MCP SDK client OAuth (discovery from the 401, DCR, PKCE, token, tool call)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startOAuthServer();
  });
  afterAll(async () => s?.stop());

  it('answers an anonymous /mcp request with 401 naming the protected resource metadata', async () => {
    const res = await fetch(`${s.http}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate')!;
    const url = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(url).toBe(`${s.http}/.well-known/oauth-protected-resource/mcp`);
    const doc = (await (await fetch(url!)).json()) as Record<string, unknown>;
    expect(doc).toEqual({
      resource: `${s.http}/mcp`,
      authorization_servers: [new URL(s.http).origin],
      scopes_supported: ['mcp:tools'],
      bearer_methods_supported: ['header'],
      resource_name: 'Agentport (MCP)',
    });
  });

  it('connects, authorizes and lists and calls tools', async () => {
    const provider = new MemoryOAuthProvider(REDIRECT, 'MCP SDK test client');
    const url = new URL(`${s.http}/mcp`);
    const first = new Client({ name: 'oauth-test', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
    await expect(first.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }))).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.info?.client_id).toBeTruthy(); // registered dynamically
    const authUrl = provider.authorizationUrl!;
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authUrl.searchParams.get('resource')).toBe(`${s.http}/mcp`);

    const r = await browse(s, authUrl.href, { redirectPrefix: REDIRECT });
    expect(r.stoppedAt).toBeUndefined();
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await transport.finishAuth(r.callback!.searchParams);
    expect(provider.stored?.access_token).toBeTruthy();

    const client = new Client({ name: 'oauth-test', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
    await client.connect(transport);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('echo_echo');
    const result = await client.callTool({ name: 'echo_echo', arguments: { message: 'through OAuth' } });
    expect(JSON.stringify(result.content)).toContain('through OAuth');
    await client.close();
  });
});
