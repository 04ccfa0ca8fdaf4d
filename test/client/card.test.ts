/**
 * Card resolution against a running Agentport: well-known discovery from an agent URL, the RFC 9111
 * cache (fresh reuse, then If-None-Match revalidation answered 304), v0.3 cards read as v1.0, and
 * signature checks against the server's JWKS, including a tampered card and a foreign key set.
 */
import { generateKeyPair, exportJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, AgentCardError, CardResolver, cardUrlCandidates, verifyCardSignature } from '../../src/client/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { serverConfig } from './support.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer(serverConfig());
});
afterAll(() => s?.stop());

describe('card discovery', () => {
  it('tries the well-known card beneath the given path, then the v0.2 name there; a .json URL is taken as is', () => {
    expect(cardUrlCandidates('https://h.example/a2a/echo/')).toEqual(['https://h.example/a2a/echo/.well-known/agent-card.json', 'https://h.example/a2a/echo/.well-known/agent.json']);
    expect(cardUrlCandidates('https://h.example')).toEqual(['https://h.example/.well-known/agent-card.json', 'https://h.example/.well-known/agent.json']);
    expect(cardUrlCandidates('https://h.example/cards/x.json')).toEqual(['https://h.example/cards/x.json']);
  });

  it("finds an agent's own card from its base URL", async () => {
    const r = await new CardResolver().resolve(`${s.http}/a2a/probe`);
    expect(r.url).toBe(`${s.http}/a2a/probe/.well-known/agent-card.json`);
    expect(r.card.name).toBe('Probe');
    expect(r.cardVersion).toBe('1.0');
  });

  it('refuses what is not an http(s) URL, and names a 404 everywhere as an AgentCardError', async () => {
    await expect(new CardResolver().resolve('ftp://x/y')).rejects.toBeInstanceOf(AgentCardError);
    await expect(new CardResolver().resolve(`${s.http}/nothing-here/card.json`)).rejects.toMatchObject({ status: 404 });
  });
});

describe('card cache', () => {
  it('reuses a fresh card without a request, then revalidates with the ETag and gets 304', async () => {
    const resolver = new CardResolver();
    const first = await resolver.resolve(`${s.http}/a2a/echo`);
    expect(first.fromCache).toBe(false);
    expect(first.etag).toMatch(/^(W\/)?"/);
    const requestsAfterFirst = resolver.stats.requests;

    const second = await resolver.resolve(`${s.http}/a2a/echo`);
    expect(second.fromCache).toBe(true);
    expect(resolver.stats.requests).toBe(requestsAfterFirst); // max-age: no request at all

    const third = await resolver.resolve(`${s.http}/a2a/echo`, { revalidate: true });
    expect(third.fromCache).toBe(true);
    expect(resolver.stats.requests).toBe(requestsAfterFirst + 1);
    expect(resolver.stats.notModified).toBe(1);
    expect(third.card).toEqual(first.card);
  });

  it('revalidates once max-age has passed', async () => {
    let clock = Date.now();
    const resolver = new CardResolver({ now: () => clock });
    await resolver.resolve(`${s.http}/a2a/echo`);
    clock += 24 * 3600_000;
    const again = await resolver.resolve(`${s.http}/a2a/echo`);
    expect(again.fromCache).toBe(true);
    expect(resolver.stats).toEqual({ requests: 2, notModified: 1 });
  });
});

describe('v0.3 cards', () => {
  it('reads the v0.2-path card as a v1.0 card with v0.3 interfaces, and the client talks v0.3 through it', async () => {
    const r = await new CardResolver().resolve(`${s.http}/a2a/echo/.well-known/agent.json`);
    expect(r.cardVersion).toBe('0.3');
    expect(r.card.supportedInterfaces[0]).toEqual({ url: `${s.http}/a2a/echo`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' });
    expect(r.card.skills.map((k) => k.id)).toEqual(['echo']);
    const c = await A2AClient.connect(`${s.http}/a2a/echo/.well-known/agent.json`);
    expect(c.currentInterface.protocolVersion).toBe('0.3');
    const sent = await c.sendMessage({ message: { messageId: 'v03-card-1', role: 'ROLE_USER', parts: [{ text: 'via v0.3' }] } });
    expect('task' in sent && sent.task.artifacts?.[0]?.parts[0]?.text).toBe('via v0.3');
  });
});

describe('card signatures', () => {
  const jwksUrl = () => `${s.http}/.well-known/jwks.json`;

  it("verifies Agentport's signed card against its JWKS URL, and connect({verifyCard}) accepts it", async () => {
    const r = await new CardResolver().resolve(`${s.http}/a2a/echo`);
    expect(r.card.signatures?.length).toBeGreaterThan(0);
    await expect(verifyCardSignature(r.card, r.url, { jwks: jwksUrl() })).resolves.toBeUndefined();
    const c = await A2AClient.connect(`${s.http}/a2a/echo`, { verifyCard: { jwks: jwksUrl() } });
    expect(c.card.name).toBe('Echo');
  });

  it('rejects a card changed after signing', async () => {
    const r = await new CardResolver().resolve(`${s.http}/a2a/echo`);
    const tampered = { ...r.card, supportedInterfaces: [{ url: 'https://evil.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] };
    await expect(verifyCardSignature(tampered, r.url, { jwks: jwksUrl() })).rejects.toThrow(/no signature .* verifies/);
  });

  it('rejects a card when the trusted keys are not the signer’s, and an unsigned card', async () => {
    const r = await new CardResolver().resolve(`${s.http}/a2a/echo`);
    const { publicKey } = await generateKeyPair('ES256');
    const foreign = { keys: [{ ...(await exportJWK(publicKey)), kid: JSON.parse(Buffer.from(r.card.signatures![0]!.protected, 'base64url').toString()).kid, alg: 'ES256' }] };
    await expect(verifyCardSignature(r.card, r.url, { jwks: foreign })).rejects.toBeInstanceOf(AgentCardError);
    const { signatures: _s, ...unsigned } = r.card;
    await expect(verifyCardSignature(unsigned, r.url, { jwks: jwksUrl() })).rejects.toThrow(/not signed/);
  });
});
