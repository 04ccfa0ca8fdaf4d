/**
 * What the cards declare is what the server enforces: the schemes a card lists are the ones that
 * authenticate, and each scope a skill's securityRequirements names is exactly one whose absence
 * is refused with 403 (A2A) or hides the skill's tool (MCP).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAUTH_PATHS } from '../../../src/auth/oauth-paths.js';
import { modernClient } from '../../bindings/mcp/clients.js';
import { rpc, startTestServer, userMessage } from '../../support/server.js';
import { challengeParams, startAuthzServer, type AuthzServer } from './support.js';

let s: AuthzServer;

beforeAll(async () => {
  s = await startAuthzServer({
    agents: [
      { id: 'echo', builtin: 'echo', skills: { echo: { scopes: ['echo:use'] } } },
      { id: 'open', builtin: 'echo' },
    ],
  });
}, 30_000);

afterAll(async () => s?.stop());

interface Card {
  securitySchemes?: Record<string, Record<string, any>>;
  securityRequirements?: Array<{ schemes: Record<string, { list: string[] }> }>;
  skills: Array<{ id: string; securityRequirements?: Array<{ schemes: Record<string, { list: string[] }> }> }>;
}

const cardOf = async (agent: string): Promise<Card> => (await fetch(`${s.http}/a2a/${agent}/.well-known/agent-card.json`)).json() as Promise<Card>;

describe('the card declares the schemes that authenticate', () => {
  it('lists API key (X-API-Key), bearer and the two OAuth flows with this server’s URLs', async () => {
    const card = await cardOf('echo');
    expect(Object.keys(card.securitySchemes ?? {}).sort()).toEqual(['apiKey', 'bearer', 'oauth2', 'oauth2ClientCredentials']);
    expect(card.securitySchemes!.apiKey!.apiKeySecurityScheme).toMatchObject({ location: 'header', name: 'X-API-Key' });
    expect(card.securitySchemes!.bearer!.httpAuthSecurityScheme).toMatchObject({ scheme: 'Bearer' });
    const code = card.securitySchemes!.oauth2!.oauth2SecurityScheme;
    expect(code.flows.authorizationCode).toMatchObject({ authorizationUrl: `${s.http}${OAUTH_PATHS.authorize}`, tokenUrl: `${s.http}${OAUTH_PATHS.token}`, pkceRequired: true });
    expect(code.oauth2MetadataUrl).toBe(`${s.http}${OAUTH_PATHS.authorizationServerMetadata}`);
    expect(Object.keys(code.flows.authorizationCode.scopes)).toEqual(expect.arrayContaining(['a2a:discover', 'a2a:publish', 'mcp:tools', 'echo:use']));
    expect(card.securitySchemes!.oauth2ClientCredentials!.oauth2SecurityScheme.flows.clientCredentials.tokenUrl).toBe(`${s.http}${OAUTH_PATHS.token}`);
  });

  it('the declared header and bearer schemes both carry a key', async () => {
    const key = await s.key('carol', ['a2a:publish', 'echo:use']);
    for (const h of [{ 'x-api-key': key }, { authorization: `Bearer ${key}` }] as Array<Record<string, string>>) {
      const r = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('hi') }, h);
      expect(r.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    }
  });

  it('v0.3 cards carry the same schemes as securitySchemes + security', async () => {
    const v03 = (await (await fetch(`${s.http}/a2a/echo/.well-known/agent-card.json`, { headers: { 'a2a-version': '0.3' } })).json()) as any;
    expect(v03.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(v03.securitySchemes.oauth2.type).toBe('oauth2');
    expect(v03.security).toContainEqual({ apiKey: ['a2a:discover', 'a2a:publish'] });
    expect(v03.skills[0].security).toContainEqual({ apiKey: ['a2a:publish', 'echo:use'] });
  });
});

describe("a skill's declared scopes are exactly the enforced ones", () => {
  it('the echo skill declares a2a:publish and echo:use for every scheme; the open agent’s skill declares none', async () => {
    const card = await cardOf('echo');
    const reqs = card.skills.find((k) => k.id === 'echo')!.securityRequirements!;
    expect(reqs.map((r) => Object.keys(r.schemes)[0]).sort()).toEqual(['apiKey', 'bearer', 'oauth2', 'oauth2ClientCredentials']);
    for (const r of reqs) expect(Object.values(r.schemes)[0]!.list.sort()).toEqual(['a2a:publish', 'echo:use']);
    expect((await cardOf('open')).skills[0]!.securityRequirements).toBeUndefined();
  });

  it('A2A: each declared scope missing alone is a 403 naming the declared scopes; all of them succeed', async () => {
    const declared = Object.values((await cardOf('echo')).skills[0]!.securityRequirements![0]!.schemes)[0]!.list;
    for (const missing of declared) {
      const key = await s.key('dave', ['a2a:discover', ...declared.filter((x) => x !== missing)]);
      const r = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('hi') }, { 'x-api-key': key });
      expect(r.status, missing).toBe(403);
      expect(challengeParams(r.headers.get('www-authenticate')).scope!.split(' ').sort()).toEqual([...declared].sort());
      expect(r.body.error.data[0].reason).toBe('PERMISSION_DENIED');
    }
    const all = await s.key('dave', declared);
    const ok = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('hi') }, { 'x-api-key': all });
    expect(ok.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    // The agent without skill scopes needs only a2a:publish.
    const plain = await s.key('dave', ['a2a:publish']);
    const open = await rpc(`${s.http}/a2a/open`, 'SendMessage', { message: userMessage('hi') }, { 'x-api-key': plain });
    expect(open.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('MCP: the skill’s tool is listed only with its declared extra scope', async () => {
    const without = await modernClient(`${s.http}/mcp`, { headers: { 'x-api-key': await s.key('erin', ['mcp:tools']) } });
    const withScope = await modernClient(`${s.http}/mcp`, { headers: { 'x-api-key': await s.key('erin', ['mcp:tools', 'echo:use']) } });
    try {
      const a = (await without.listTools()).tools.map((t) => t.name);
      const b = (await withScope.listTools()).tools.map((t) => t.name);
      expect(a).toContain('open_echo');
      expect(a).not.toContain('echo_echo');
      expect(b).toEqual(expect.arrayContaining(['open_echo', 'echo_echo']));
      const r = (await withScope.callTool({ name: 'echo_echo', arguments: { message: 'ping' } })) as { isError?: boolean };
      expect(r.isError ?? false).toBe(false);
    } finally {
      await without.close();
      await withScope.close();
    }
  });
});

describe('auth.mode none', () => {
  it('publishes no security schemes, and an anonymous caller may send', async () => {
    const open = await startTestServer({ agents: [{ id: 'echo', builtin: 'echo', skills: { echo: { scopes: ['echo:use'] } } }] });
    try {
      const card = (await (await fetch(`${open.http}/.well-known/agent-card.json`)).json()) as Card;
      expect(card.securitySchemes).toBeUndefined();
      expect(card.securityRequirements).toBeUndefined();
      expect(card.skills[0]!.securityRequirements).toBeUndefined();
      const r = await rpc(`${open.http}/a2a/echo`, 'SendMessage', { message: userMessage('hi') });
      expect(r.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(open.firstAdminKey).toBeUndefined();
    } finally {
      await open.stop();
    }
  });
});
