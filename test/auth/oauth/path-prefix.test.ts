/**
 * Agentport under a path prefix (`server.publicUrl: http://127.0.0.1:<proxy>/agentport`) behind a
 * real reverse proxy on loopback, at the protocol level: everything the server tells clients
 * carries the prefix (RFC 9728 documents and challenges, the issuer and RFC 8414 discovery, the
 * cards), and the official MCP client's own OAuth flow discovers, registers, authorizes and calls
 * a tool through the proxy only. Three proxies: one that strips the prefix and forwards nothing
 * else (the MCP client finds the issuer's metadata at the path-appended OIDC URL, its third try),
 * one that also forwards the origin-root documents RFC 8414 §3.1 and RFC 9728 §3.1 name (its
 * first try), and one that passes the prefix on (the server drops it).
 */
import { Client, discoverOAuthServerInfo, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/private-services.js';
import { startReverseProxy, type ReverseProxy } from '../../support/reverse-proxy.js';
import type { TestServer } from '../../support/server.js';
import { MemoryOAuthProvider } from './memory-oauth-provider.js';
import { browse, startOAuthServer } from './support.js';

const REDIRECT = 'http://127.0.0.1:48124/callback';
const PREFIX = '/agentport';

const PROXIES = [
  { name: 'a proxy that strips the prefix and forwards nothing else', strip: true, rootWellKnown: false, firstDiscovery: `${PREFIX}/.well-known/openid-configuration` },
  { name: 'a proxy that strips the prefix and forwards the origin-root metadata documents', strip: true, rootWellKnown: true, firstDiscovery: `/.well-known/oauth-authorization-server${PREFIX}` },
  { name: 'a proxy that passes the prefix on', strip: false, rootWellKnown: false, firstDiscovery: `${PREFIX}/.well-known/openid-configuration` },
];

describe.each(PROXIES)('under a path prefix, behind $name', ({ strip, rootWellKnown, firstDiscovery }) => {
  let s: TestServer;
  let proxy: ReverseProxy;
  let pub: string;
  let direct: string;
  beforeAll(async () => {
    const port = await freePort();
    proxy = await startReverseProxy({ targetPort: port, prefix: PREFIX, strip, rootWellKnown });
    pub = proxy.url;
    direct = `http://127.0.0.1:${port}`;
    s = await startOAuthServer({ server: { port, publicUrl: pub } });
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
    await proxy?.stop();
  });

  it('challenges /mcp with the prefixed RFC 9728 document, which names the prefixed resource and issuer', async () => {
    const res = await fetch(`${pub}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(res.status).toBe(401);
    const url = /resource_metadata="([^"]+)"/.exec(res.headers.get('www-authenticate') ?? '')?.[1];
    expect(url).toBe(`${pub}/.well-known/oauth-protected-resource/mcp`);
    const doc = (await (await fetch(url!)).json()) as Record<string, unknown>;
    expect(doc).toMatchObject({ resource: `${pub}/mcp`, authorization_servers: [pub] });
  });

  it('serves the issuer metadata with the prefixed issuer and endpoints, path-appended (OIDC) and path-inserted (RFC 8414 §3.1)', async () => {
    const appended = (await (await fetch(`${pub}/.well-known/openid-configuration`)).json()) as Record<string, string>;
    expect(appended.issuer).toBe(pub);
    for (const key of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'jwks_uri', 'revocation_endpoint', 'introspection_endpoint']) {
      expect(appended[key], key).toMatch(new RegExp(`^${pub}/`));
    }
    // Where RFC 8414 §3.1 and RFC 9728 §3.1 put them: at the origin's root, the prefix after the
    // well-known name. Through the proxy when it forwards them; the server answers them either way.
    const origin = new URL(pub).origin;
    const at = rootWellKnown ? origin : direct;
    const inserted = await fetch(`${at}/.well-known/oauth-authorization-server${PREFIX}`);
    expect(inserted.status).toBe(200);
    expect(((await inserted.json()) as { issuer: string }).issuer).toBe(pub);
    const resource = await fetch(`${at}/.well-known/oauth-protected-resource${PREFIX}/a2a/echo`);
    expect(((await resource.json()) as { resource: string }).resource).toBe(`${pub}/a2a/echo`);
    // The root resource (the server below its prefix): its §3.1 document is the prefix alone.
    const root = await fetch(`${at}/.well-known/oauth-protected-resource${PREFIX}`);
    expect(root.status).toBe(200);
    expect(((await root.json()) as { resource: string }).resource).toBe(pub);
    if (!rootWellKnown) expect((await fetch(`${origin}/.well-known/oauth-authorization-server${PREFIX}`)).status).toBe(404);
  });

  it('lets the MCP client discover, register, authorize and call a tool through the proxy; the token is for the prefixed resource', async () => {
    const provider = new MemoryOAuthProvider(REDIRECT, 'MCP SDK client behind a prefix');
    const url = new URL(`${pub}/mcp`);
    const first = new Client({ name: 'prefix-test', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
    const seen = proxy.forwarded.length;
    await expect(first.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }))).rejects.toBeInstanceOf(UnauthorizedError);
    // The first metadata URL the client tried that the proxy forwarded is the one it used.
    const asked = proxy.forwarded.slice(seen);
    expect(asked.find((p) => p.includes('/.well-known/') && !p.includes('oauth-protected-resource'))).toBe(strip && firstDiscovery.startsWith(PREFIX) ? firstDiscovery.slice(PREFIX.length) : firstDiscovery);
    expect(provider.info?.client_id).toBeTruthy();
    const authUrl = provider.authorizationUrl!;
    expect(authUrl.href.startsWith(`${pub}/oauth/authorize?`)).toBe(true);
    expect(authUrl.searchParams.get('resource')).toBe(`${pub}/mcp`);

    const r = await browse(s, authUrl.href, { redirectPrefix: REDIRECT });
    expect(r.stoppedAt).toBeUndefined();
    expect(r.callback!.searchParams.get('iss')).toBe(pub);
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await transport.finishAuth(r.callback!.searchParams);
    const claims = decodeJwt(provider.stored.access_token as string);
    expect(claims.iss).toBe(pub);
    expect(claims.aud).toBe(`${pub}/mcp`);

    const client = new Client({ name: 'prefix-test', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
    await client.connect(transport);
    const result = await client.callTool({ name: 'echo_echo', arguments: { message: 'below the prefix' } });
    expect(JSON.stringify(result.content)).toContain('below the prefix');
    await client.close();
    // The token names /mcp below the prefix: the A2A endpoint of the same server refuses it.
    const a2a = await fetch(`${pub}/a2a/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${provider.stored.access_token}` },
      body: '{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}',
    });
    expect(a2a.status).toBe(401);
  });

  it('is found without the challenge (RFC 9728 §3.1 at the origin root) only when the proxy forwards the origin-root documents', async () => {
    const info = await discoverOAuthServerInfo(`${pub}/mcp`).catch(() => undefined);
    if (rootWellKnown) {
      expect(info?.authorizationServerUrl).toBe(pub);
      expect(info?.resourceMetadata?.resource).toBe(`${pub}/mcp`);
      expect(info?.authorizationServerMetadata?.issuer).toBe(pub);
    } else {
      // The documented limit of a proxy that forwards the prefix only: a client must start from the 401.
      expect(info?.authorizationServerMetadata?.issuer).not.toBe(pub);
    }
  });

  it('serves the /mcp/config/ page with its forms and cookie below the prefix', async () => {
    const res = await fetch(`${pub}/mcp/config/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<form method="post" action="/agentport/mcp/config/login">');
    expect(res.headers.get('set-cookie')).toMatch(/; Path=\/agentport\/mcp\/config;/);
  });

  it('lists prefixed URLs in the agent cards', async () => {
    for (const cardUrl of [`${pub}/.well-known/agent-card.json`, `${pub}/a2a/echo/.well-known/agent-card.json`]) {
      const card = (await (await fetch(cardUrl)).json()) as { supportedInterfaces: Array<{ url: string }>; securitySchemes: Record<string, any> };
      const http = card.supportedInterfaces.filter((i) => i.url.startsWith('http'));
      expect(http.length).toBeGreaterThan(0);
      for (const i of http) expect(i.url).toBe(`${pub}/a2a/echo`);
      const oauth = card.securitySchemes.oauth2.oauth2SecurityScheme;
      expect(oauth.oauth2MetadataUrl).toBe(`${pub}/.well-known/oauth-authorization-server`);
      expect(oauth.flows.authorizationCode.authorizationUrl).toBe(`${pub}/oauth/authorize`);
      expect(oauth.flows.authorizationCode.tokenUrl).toBe(`${pub}/oauth/token`);
      // The named metadata URL is reachable through the proxy and names the same issuer.
      expect(((await (await fetch(oauth.oauth2MetadataUrl)).json()) as { issuer: string }).issuer).toBe(pub);
    }
  });
});
