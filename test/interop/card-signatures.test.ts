/**
 * Interop: our agent-card signatures verify with the official A2A JS SDK verifier
 * (`verifyAgentCardSignature`, @a2a-js/sdk 1.3) using the keys of our own `/.well-known/jwks.json`.
 */
import { verifyAgentCardSignature, type AgentCard } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { closeClient, jwksKeyLookup, sdkClient, SERVER_CONFIG, TRANSPORTS } from './sdk-support.js';

type Jwks = { keys: Array<Record<string, unknown>> };

const getJson = async <T>(url: string): Promise<T> => {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return (await res.json()) as T;
};

let debug: MockInstance;
beforeAll(() => {
  // The verifier logs every signature entry that does not verify; a card may carry a second
  // signature over the spec's canonical form, which the SDK's canonicalization does not produce.
  debug = vi.spyOn(console, 'debug').mockImplementation(() => {});
});
afterAll(() => debug.mockRestore());

describe('public cards verify with the SDK verifier against our JWKS', () => {
  let s: TestServer;
  let jwks: Jwks;

  beforeAll(async () => {
    s = await startTestServer(SERVER_CONFIG);
    jwks = await getJson<Jwks>(`${s.http}/.well-known/jwks.json`);
  });
  afterAll(async () => s?.stop());

  it.each([
    ['the root well-known card', '/.well-known/agent-card.json'],
    ['the echo card (skills: [] — every skill is extended-only)', '/a2a/echo/.well-known/agent-card.json'],
    ['the conformance card', '/a2a/conformance/.well-known/agent-card.json'],
  ])('%s', async (_name, path) => {
    const card = await getJson<AgentCard>(`${s.http}${path}`);
    expect(card.signatures.length).toBeGreaterThan(0);
    const seen: Array<{ kid: string; jku?: string }> = [];
    await expect(verifyAgentCardSignature(jwksKeyLookup(jwks, seen))(card)).resolves.toBeUndefined();
    // the protected header names our JWKS
    expect(seen[0]?.jku).toBe(`${s.http}/.well-known/jwks.json`);
    expect(jwks.keys.map((k) => k.kid)).toContain(seen[0]?.kid);
  });

  it('a card changed after signing no longer verifies', async () => {
    const card = await getJson<AgentCard>(`${s.http}/a2a/conformance/.well-known/agent-card.json`);
    const tampered = { ...card, description: `${card.description} (tampered)` };
    await expect(verifyAgentCardSignature(jwksKeyLookup(jwks))(tampered)).rejects.toThrow('No valid signatures found on agent card.');
  });
});

// Without API keys the cards declare no securitySchemes, so the SDK's in-client verification path
// (getAgentCard(options, verifier)) works: it fetches the extended card over the chosen binding and
// verifies the card as decoded from that binding's wire format.
describe.each(TRANSPORTS)('the SDK client verifies the extended card it fetched over $binding (server without API keys)', (transport) => {
  let s: TestServer;
  let client: Client | undefined;

  beforeAll(async () => {
    s = await startTestServer({ agents: [{ id: 'echo', builtin: 'echo' }] });
  });
  afterAll(async () => {
    closeClient(client);
    await s?.stop();
  });

  it('getAgentCard(options, verifier) resolves with the verified extended card', async () => {
    const jwks = await getJson<Jwks>(`${s.http}/.well-known/jwks.json`);
    client = await sdkClient(`${s.http}/a2a/echo/.well-known/agent-card.json`, transport);
    expect(client.transport.protocolName).toBe(transport.binding);
    const card = await client.getAgentCard(undefined, verifyAgentCardSignature(jwksKeyLookup(jwks)));
    expect(card.name).toBe('Echo');
    expect(card.skills.map((k) => k.id)).toEqual(['echo']);
  });
});
