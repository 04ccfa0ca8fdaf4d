import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { routeOf } from '../../../src/bindings/mcp/mcp-face.js';
import { addWellKnownCors, wellKnownPreflight } from '../../../src/bindings/mcp/admission/well-known-cors.js';

const req = (method: string, headers: Record<string, string> = {}) => ({ method, headers }) as unknown as IncomingMessage;

describe('MCP face routes', () => {
  it('takes /mcp, /a2a/{id}/mcp and the item pages, percent-decoded', () => {
    expect(routeOf('/mcp')).toEqual({ kind: 'mcp' });
    expect(routeOf('/mcp/')).toEqual({ kind: 'mcp' });
    expect(routeOf('/a2a/a%20b/mcp/')).toEqual({ kind: 'mcp', agentId: 'a b' });
    expect(routeOf('/a2a/te/items/table%3Ax')).toEqual({ kind: 'item', agentId: 'te', itemId: 'table:x' });
  });

  it('leaves everything else, and a path it cannot decode, to other faces', () => {
    for (const p of ['/mcp/tools/list', '/a2a/echo', '/a2a/echo/v1/message:send', '/a2a/%E0%A4%A/mcp', '/.well-known/oauth-protected-resource']) expect(routeOf(p)).toBeUndefined();
  });

  it('the well-known face takes only the preflight; other requests get CORS headers for whoever serves them', () => {
    expect(wellKnownPreflight.match(req('OPTIONS'), '/.well-known/oauth-protected-resource')).toBe(true);
    expect(wellKnownPreflight.match(req('GET'), '/.well-known/oauth-protected-resource')).toBeUndefined();
    expect(wellKnownPreflight.match(req('OPTIONS'), '/mcp')).toBeUndefined();
    const set: Record<string, string> = {};
    const res = { setHeader: (k: string, v: string) => (set[k] = v) } as never;
    addWellKnownCors(req('GET', { origin: 'https://inspector.example' }), res, '/.well-known/agent-card.json');
    expect(set['Access-Control-Allow-Origin']).toBe('https://inspector.example');
    addWellKnownCors(req('GET', { origin: 'https://x.example' }), res, '/api/v1/agents');
    expect(set['Access-Control-Allow-Origin']).toBe('https://inspector.example');
  });
});
