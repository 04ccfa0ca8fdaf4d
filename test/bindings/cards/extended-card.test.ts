import { afterEach, describe, expect, it } from 'vitest';
import { rpc, startTestServer, type TestServer } from '../../support/server.js';

describe('extended agent card availability', () => {
  let s: TestServer | undefined;
  afterEach(async () => s?.stop());

  it('is not offered when no caller could authenticate for it (no API keys)', async () => {
    s = await startTestServer();
    const card = await (await fetch(`${s.http}/.well-known/agent-card.json`)).json();
    expect(card.capabilities.extendedAgentCard).toBe(false);
    const r = await rpc(`${s.http}/a2a/echo`, 'GetExtendedAgentCard', {});
    expect(r.body.error.code).toBe(-32004);
  });

  it('requires authentication when API keys are configured', async () => {
    s = await startTestServer({ auth: { apiKeys: [{ key: 'k-0123456789abcdef', subject: 'alice' }] } });
    const anonymous = await rpc(`${s.http}/a2a/echo`, 'GetExtendedAgentCard', {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect(anonymous.body.error.data[0].reason).toBe('UNAUTHENTICATED');
    const withKey = await rpc(`${s.http}/a2a/echo`, 'GetExtendedAgentCard', {}, { authorization: 'Bearer k-0123456789abcdef' });
    expect(withKey.body.result.name).toBe('Echo');
  });

  it('is served to anyone only with auth.anonymousExtendedCard (the TCK profile)', async () => {
    s = await startTestServer({ auth: { anonymousExtendedCard: true } });
    const card = await (await fetch(`${s.http}/.well-known/agent-card.json`)).json();
    expect(card.capabilities.extendedAgentCard).toBe(true);
    const r = await rpc(`${s.http}/a2a/echo`, 'GetExtendedAgentCard', {});
    expect(r.body.result.name).toBe('Echo');
  });
});
