/**
 * The card for requests without `A2A-Version` (src/protocol/a2a-v03/dual-card.ts): v1.0 members
 * with the v0.3 ones beside it, security schemes readable in both forms, signatures that verify
 * for our verifier (whole card) and stay exact for v1.0 (the v1.0 card's own), and the exact v1.0
 * card under `cards.v03Fields: false` (the TCK profile).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAgentCard } from '../../../src/protocol/a2a/card/sign-card.js';
import type { AgentCard } from '../../../src/protocol/a2a/types.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const API_KEY = 'test-key-headerless-0123456789abcdef';
const V03_KEYS = ['url', 'preferredTransport', 'protocolVersion', 'additionalInterfaces', 'supportsAuthenticatedExtendedCard', 'security'];
type Jwks = Parameters<typeof verifyAgentCard>[1];

const getJson = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { headers });
  expect(res.status).toBe(200);
  return (await res.json()) as AgentCard & Record<string, unknown>;
};

describe('headerless card with signing and authentication on', () => {
  let s: TestServer;
  let jwks: Jwks;
  beforeAll(async () => {
    s = await startTestServer({
      agents: [{ id: 'echo', builtin: 'echo', extendedCard: true }],
      auth: { mode: 'required', apiKeys: [{ key: API_KEY, subject: 'alice' }] },
    });
    jwks = (await getJson(`${s.http}/.well-known/jwks.json`)) as unknown as Jwks;
  });
  afterAll(async () => s?.stop());

  it('carries both generations: v1.0 interfaces, the v0.3 endpoint, v0.3 security', async () => {
    const card = await getJson(`${s.http}/.well-known/agent-card.json`);
    expect(card.supportedInterfaces.length).toBeGreaterThan(0);
    expect(card).toMatchObject({ protocolVersion: '0.3.0', url: `${s.http}/a2a/echo`, preferredTransport: 'JSONRPC', supportsAuthenticatedExtendedCard: true });
    expect(card.additionalInterfaces).toEqual([
      { url: `${s.http}/a2a/echo`, transport: 'JSONRPC' },
      { url: `${s.http}/a2a/echo`, transport: 'HTTP+JSON' },
      { url: s.grpc, transport: 'GRPC' },
    ]);
    // each scheme reads as v1.0 (the oneof member) and as v0.3 (`type`-keyed)
    expect(card.securitySchemes!.apiKey).toMatchObject({ apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' }, type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(card.securitySchemes!.bearer).toMatchObject({ httpAuthSecurityScheme: { scheme: 'Bearer' }, type: 'http', scheme: 'Bearer' });
    expect(card.security).toEqual(card.securityRequirements!.map((r) => Object.fromEntries(Object.entries(r.schemes).map(([k, v]) => [k, v.list ?? []]))));
  });

  it('keeps the v1.0 card exact when asked for v1.0, with the same v1.0 signatures', async () => {
    const v1 = await getJson(`${s.http}/.well-known/agent-card.json`, { 'A2A-Version': '1.0' });
    for (const key of V03_KEYS) expect(v1).not.toHaveProperty(key);
    const dual = await getJson(`${s.http}/.well-known/agent-card.json`);
    for (const sig of v1.signatures!) expect(dual.signatures).toContainEqual(sig);
    expect(dual.signatures!.length).toBeGreaterThan(v1.signatures!.length);
  });

  it('verifies as served, and not once a v0.3 member is changed', async () => {
    const dual = await getJson(`${s.http}/a2a/echo/.well-known/agent-card.json`);
    expect(await verifyAgentCard(dual, jwks)).toBe(true);
    expect(await verifyAgentCard({ ...dual, url: 'https://attacker.example/a2a' } as AgentCard, jwks)).toBe(false);
    expect(await verifyAgentCard({ ...dual, preferredTransport: 'HTTP+JSON' } as AgentCard, jwks)).toBe(false);
  });
});

describe('cards.v03Fields: false (the TCK profile)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ agents: [{ id: 'echo', builtin: 'echo' }], cards: { v03Fields: false } });
  });
  afterAll(async () => s?.stop());

  it('serves the exact v1.0 card without A2A-Version, still varying on it', async () => {
    const res = await fetch(`${s.http}/.well-known/agent-card.json`);
    expect(res.headers.get('vary')).toBe('A2A-Version');
    const card = (await res.json()) as Record<string, unknown>;
    for (const key of V03_KEYS) expect(card).not.toHaveProperty(key);
    const asked = await fetch(`${s.http}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '0.3' } });
    expect(((await asked.json()) as Record<string, unknown>).url).toBe(`${s.http}/a2a/echo`);
  });
});
