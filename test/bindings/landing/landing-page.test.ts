/** `GET /` over HTTP: HTML for browsers, JSON for API clients, and only public agents named. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOAuthServer } from '../../auth/oauth/support.js';
import type { TestServer } from '../../support/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startOAuthServer({
    agents: [
      { id: 'echo', builtin: 'echo' },
      { id: 'secret-agent', builtin: 'echo', visibility: 'extended' },
    ],
  });
}, 30_000);
afterAll(async () => s?.stop());

const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('GET /', () => {
  it('an API client (curl sends */*) gets JSON: agents with card URLs, the MCP URL, health', async () => {
    const res = await fetch(`${s.http}/`, { headers: { accept: '*/*' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('vary')).toMatch(/Accept/);
    const body = await res.json();
    expect(body.agents.map((a: { id: string }) => a.id)).toEqual(['echo']);
    expect(body.agents[0].cardUrl).toBe(`${s.http}/a2a/echo/.well-known/agent-card.json`);
    expect(body.mcp.url).toBe(`${s.http}/mcp`);
    expect(body.links.health).toBe(`${s.http}/healthz`);
    expect(body.auth).toEqual({ required: true, oauth: true });
    const jsonFirst = await fetch(`${s.http}/`, { headers: { accept: 'application/json, text/html;q=0.5' } });
    expect(jsonFirst.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('a browser gets the HTML page, with the page CSP, and a hidden agent is not named in it', async () => {
    const res = await fetch(`${s.http}/`, { headers: { accept: browserAccept } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).toContain(`${s.http}/mcp`);
    expect(html).toContain(`claude mcp add --transport http agentport ${s.http}/mcp`);
    expect(html).not.toContain('secret-agent');
  });
});
