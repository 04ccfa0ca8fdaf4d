/**
 * Cards for v0.3 and v0.2 clients: the v0.3 shape on `A2A-Version: 0.3` (both generations' members without a header),
 * `Vary: A2A-Version`, the v0.2 path `/.well-known/agent.json`, v0.3 interfaces in the v1.0 card,
 * the v0.2 `GET {base}/agent/authenticatedExtendedCard`, and a2a-js 1.3's legacy card detection.
 */
import { isLegacyAgentCard, parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server.js';
import { API_KEY, V03_SERVER_CONFIG } from '../../bindings/a2a-legacy/v03/v03-support.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer(V03_SERVER_CONFIG);
});
afterAll(async () => {
  await s?.stop();
});

const get = async (path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${s.http}${path}`, { headers });
  return { status: res.status, headers: res.headers, body: await res.json().catch(() => undefined) };
};

describe('agent cards for v0.3 and v0.2 clients', () => {
  it('serves the v1.0 card with the v0.3 members beside it without A2A-Version, varying on the header', async () => {
    const r = await get('/.well-known/agent-card.json');
    expect(r.body.supportedInterfaces).toBeDefined();
    expect(r.body).toMatchObject({ protocolVersion: '0.3.0', url: `${s.http}/a2a/echo`, preferredTransport: 'JSONRPC' });
    expect(r.headers.get('vary')).toBe('A2A-Version');
  });

  it('serves the exact v1.0 card on A2A-Version: 1.0, at the root and beneath an agent', async () => {
    for (const path of ['/.well-known/agent-card.json', '/a2a/conformance/.well-known/agent-card.json']) {
      const r = await get(path, { 'A2A-Version': '1.0' });
      expect(r.headers.get('vary')).toBe('A2A-Version');
      expect(r.body.supportedInterfaces).toBeDefined();
      for (const key of ['url', 'preferredTransport', 'protocolVersion', 'additionalInterfaces', 'supportsAuthenticatedExtendedCard']) expect(r.body).not.toHaveProperty(key);
    }
  });

  it('serves the v0.3 shape on A2A-Version: 0.3, at the root and beneath an agent', async () => {
    for (const path of ['/.well-known/agent-card.json', '/a2a/echo/.well-known/agent-card.json']) {
      const r = await get(path, { 'A2A-Version': '0.3' });
      expect(r.status).toBe(200);
      expect(r.headers.get('vary')).toBe('A2A-Version');
      expect(r.body).toMatchObject({ protocolVersion: '0.3.0', name: 'Echo', url: `${s.http}/a2a/echo`, preferredTransport: 'JSONRPC', supportsAuthenticatedExtendedCard: true });
      expect(r.body.supportedInterfaces).toBeUndefined();
      // echo is the primary agent, so the v0.3 gRPC service (no tenant) serves it too
      expect(r.body.additionalInterfaces).toEqual([
        { url: `${s.http}/a2a/echo`, transport: 'JSONRPC' },
        { url: `${s.http}/a2a/echo`, transport: 'HTTP+JSON' },
        { url: s.grpc, transport: 'GRPC' },
      ]);
      // auth.mode none (the test default) declares no schemes; with auth on, the v0.3 schemes are
      // checked against enforcement in test/core/authz/card-security.test.ts
      expect(r.body.securitySchemes).toBeUndefined();
      expect(r.body.security).toBeUndefined();
    }
  });

  it('gives the two shapes different ETags, so caches keep them apart', async () => {
    const v1 = await get('/.well-known/agent-card.json');
    const v03 = await get('/.well-known/agent-card.json', { 'A2A-Version': '0.3.0' });
    expect(v1.headers.get('etag')).not.toBe(v03.headers.get('etag'));
    const again = await fetch(`${s.http}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '0.3', 'If-None-Match': v03.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('serves the v0.3 shape at the v0.2 path /.well-known/agent.json, root and per agent', async () => {
    const root = await get('/.well-known/agent.json');
    expect(root.body).toMatchObject({ protocolVersion: '0.3.0', url: `${s.http}/a2a/echo` });
    const conf = await get('/a2a/conformance/.well-known/agent.json');
    expect(conf.body).toMatchObject({ protocolVersion: '0.3.0', url: `${s.http}/a2a/conformance` });
    expect((await get('/a2a/nobody/.well-known/agent.json')).status).toBe(404);
  });

  it('declares v0.3 JSON-RPC and HTTP+JSON interfaces in the v1.0 card, and v0.3 gRPC on the primary agent only', async () => {
    const r = await get('/a2a/echo/.well-known/agent-card.json', { 'A2A-Version': '1.0' });
    const v03 = r.body.supportedInterfaces.filter((i: { protocolVersion: string }) => i.protocolVersion === '0.3');
    expect(v03).toEqual([
      { url: `${s.http}/a2a/echo`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: `${s.http}/a2a/echo`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
      { url: s.grpc, protocolBinding: 'GRPC', protocolVersion: '0.3' },
    ]);
    const other = await get('/a2a/conformance/.well-known/agent-card.json', { 'A2A-Version': '1.0' });
    const otherGrpc = other.body.supportedInterfaces.filter((i: { protocolBinding: string }) => i.protocolBinding === 'GRPC');
    expect(otherGrpc.map((i: { protocolVersion: string }) => i.protocolVersion)).toEqual(['1.0']);
  });

  it('is read as a legacy card by @a2a-js/sdk 1.3, which keeps our v0.3 interfaces', async () => {
    const r = await get('/.well-known/agent.json');
    expect(isLegacyAgentCard(r.body)).toBe(true);
    const parsed = parseLegacyAgentCard(r.body);
    expect(parsed.name).toBe('Echo');
    expect(parsed.supportedInterfaces.map((i) => i.protocolBinding)).toContain('HTTP+JSON');
    expect(isLegacyAgentCard((await get('/.well-known/agent-card.json')).body)).toBe(false);
  });

  it('serves the v0.2 authenticated extended card at {base}/agent/authenticatedExtendedCard, behind auth', async () => {
    const anon = await get('/a2a/echo/agent/authenticatedExtendedCard');
    expect(anon.status).toBe(401);
    expect(anon.body).toMatchObject({ code: -32000, data: { reason: 'UNAUTHENTICATED' } });
    const r = await get('/a2a/echo/agent/authenticatedExtendedCard', { Authorization: `Bearer ${API_KEY}` });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ protocolVersion: '0.3.0', name: 'Echo' });
    expect(r.body.skills.map((sk: { id: string }) => sk.id)).toContain('echo');
    const publicSkills = (await get('/.well-known/agent.json')).body.skills.map((sk: { id: string }) => sk.id);
    expect(publicSkills).not.toContain('echo');
  });
});
