/** `agents[].remote.auth` (docs/auth.md "Acting as the caller"). */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { configErrorOf, problemLines, tempDir } from './helpers.js';

const parse = (input: unknown) => parseConfig(input, { cwd: tempDir(), env: {} });
const remote = (extra: Record<string, unknown>) => ({ agents: [{ id: 'r', remote: { cardUrl: 'http://inside.example/a2a/x', ...extra } }] });
const mcp = (extra: Record<string, unknown>) => ({ agents: [{ id: 'm', mcp: { url: 'http://inside.example/mcp', ...extra } }] });

describe('signed-identity auth on a remote', () => {
  it('takes kind with a default lifetime of 60 seconds and an optional audience', () => {
    const a = parse(remote({ auth: { kind: 'signed-identity' } })).agents[0]!;
    expect(a.remote?.auth).toEqual({ kind: 'signed-identity', ttlSeconds: 60 });
    const b = parse(remote({ auth: { kind: 'signed-identity', audience: 'https://tools.internal', ttlSeconds: 120 } })).agents[0]!;
    expect(b.remote?.auth).toEqual({ kind: 'signed-identity', audience: 'https://tools.internal', ttlSeconds: 120 });
  });

  it('refuses an Authorization header beside it: one credential per call', () => {
    const error = configErrorOf(() => parse(remote({ headers: { Authorization: 'Bearer x' }, auth: { kind: 'signed-identity' } })));
    const lines = problemLines(error);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^agents\[0\]\.remote\.auth: cannot be used with headers\.Authorization: the signed identity is the Authorization header/);
    // the header's value is a secret: never quoted back
    expect(lines[0]).not.toContain('Bearer x');
  });

  it('is taken on an MCP remote too (ADR 0034), with the same refusal of an Authorization header', () => {
    expect(parse(mcp({ auth: { kind: 'signed-identity' } })).agents[0]!.mcp?.auth).toEqual({ kind: 'signed-identity', ttlSeconds: 60 });
    expect(problemLines(configErrorOf(() => parse(mcp({ headers: { authorization: 'Bearer y' }, auth: { kind: 'signed-identity' } }))))[0]).toMatch(/^agents\[0\]\.mcp\.auth: cannot be used with headers\.authorization/);
  });

  it('names an unknown kind and a lifetime out of range', () => {
    expect(problemLines(configErrorOf(() => parse(remote({ auth: { kind: 'shared-secret' } }))))[0]).toMatch(/^agents\[0\]\.remote\.auth\.kind: /);
    expect(problemLines(configErrorOf(() => parse(remote({ auth: { kind: 'signed-identity', ttlSeconds: 5 } }))))[0]).toMatch(/^agents\[0\]\.remote\.auth\.ttlSeconds: must be an integer from 10 to 3600/);
  });
});

const KEY = Buffer.alloc(32, 1).toString('base64');
const vault = (keys: unknown) => ({ auth: { vault: { keys } } });

describe('oauth auth on an MCP remote, and the vault keys it needs (ADR 0035)', () => {
  it('takes kind oauth with a default connect wait, and the vault keys in order', () => {
    const c = parse({
      ...mcp({ auth: { kind: 'oauth', issuer: 'https://auth.example', clientId: 'agentport', scopes: ['read'] } }),
      ...vault([
        { id: 'new', secret: KEY },
        { id: 'old', secret: Buffer.alloc(32, 2).toString('base64') },
      ]),
    });
    expect(c.agents[0]!.mcp?.auth).toEqual({ kind: 'oauth', issuer: 'https://auth.example', clientId: 'agentport', scopes: ['read'], connectWaitMs: 600_000 });
    expect(c.auth.vault?.keys.map((k) => k.id)).toEqual(['new', 'old']);
  });

  it('refuses to start without a vault key, naming the setting and the agent that needs it', () => {
    const lines = problemLines(configErrorOf(() => parse(mcp({ auth: { kind: 'oauth' } }))));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^auth\.vault\.keys: is required by agents\[0\]\.mcp\.auth \(kind oauth\)/);
  });

  it('refuses a key that is not 32 bytes, duplicate ids, and never quotes a secret back', () => {
    const short = Buffer.alloc(16, 3).toString('base64');
    const lines = problemLines(configErrorOf(() => parse({ ...mcp({ auth: { kind: 'oauth' } }), ...vault([{ id: 'a', secret: short }]) })));
    expect(lines[0]).toMatch(/^auth\.vault\.keys\[0\]\.secret: must be 32 bytes in base64/);
    expect(lines.join('\n')).not.toContain(short);
    expect(
      problemLines(
        configErrorOf(() =>
          parse(
            vault([
              { id: 'a', secret: KEY },
              { id: 'a', secret: KEY },
            ]),
          ),
        ),
      )[0],
    ).toMatch(/^auth\.vault\.keys: key ids must be unique/);
  });

  it('takes oauth on a remote A2A agent too (with the vault), and refuses a client secret without its client id', () => {
    expect(parse({ ...remote({ auth: { kind: 'oauth' } }), ...vault([{ id: 'a', secret: KEY }]) }).agents[0]!.remote?.auth).toEqual({ kind: 'oauth', connectWaitMs: 600_000 });
    expect(problemLines(configErrorOf(() => parse(remote({ auth: { kind: 'oauth' } }))))[0]).toMatch(/^auth\.vault\.keys: is required by agents\[0\]\.remote\.auth/);
    expect(problemLines(configErrorOf(() => parse({ ...mcp({ auth: { kind: 'oauth', clientSecret: 'x' } }), ...vault([{ id: 'a', secret: KEY }]) })))[0]).toMatch(/^agents\[0\]\.mcp\.auth\.clientSecret: needs clientId/);
  });
});

describe('token-exchange auth on a remote (ADR 0039)', () => {
  const sts = { kind: 'token-exchange', clientId: 'agentport', clientSecret: 'a-secret-from-env' };

  it('takes the STS by issuer or by token endpoint, with a default subject token lifetime of 60 s', () => {
    expect(parse(remote({ auth: { ...sts, issuer: 'https://sts.example/', audience: 'https://billing.example', scopes: ['a2a:publish'] } })).agents[0]!.remote?.auth).toEqual({
      ...sts,
      issuer: 'https://sts.example',
      audience: 'https://billing.example',
      scopes: ['a2a:publish'],
      subjectTokenTtlSeconds: 60,
    });
    expect(parse(mcp({ auth: { ...sts, tokenEndpoint: 'https://sts.example/oauth/token', resource: 'https://tools.example/mcp' } })).agents[0]!.mcp?.auth).toEqual({
      ...sts,
      tokenEndpoint: 'https://sts.example/oauth/token',
      resource: 'https://tools.example/mcp',
      subjectTokenTtlSeconds: 60,
    });
  });

  it('needs exactly one of tokenEndpoint and issuer', () => {
    const none = problemLines(configErrorOf(() => parse(remote({ auth: sts }))));
    expect(none[0]).toMatch(/^agents\[0\]\.remote\.auth: token-exchange needs exactly one of tokenEndpoint .* or issuer/);
    const both = problemLines(configErrorOf(() => parse(mcp({ auth: { ...sts, issuer: 'https://sts.example', tokenEndpoint: 'https://sts.example/token' } }))));
    expect(both[0]).toMatch(/^agents\[0\]\.mcp\.auth: token-exchange needs exactly one of/);
  });

  it('names a missing client secret, and never quotes one back beside an Authorization header', () => {
    const { clientSecret: _s, ...noSecret } = sts;
    expect(problemLines(configErrorOf(() => parse(remote({ auth: { ...noSecret, issuer: 'https://sts.example' } }))))[0]).toMatch(/^agents\[0\]\.remote\.auth\.clientSecret: /);
    const lines = problemLines(configErrorOf(() => parse(remote({ headers: { Authorization: 'Bearer z' }, auth: { ...sts, issuer: 'https://sts.example' } }))));
    expect(lines[0]).toMatch(/^agents\[0\]\.remote\.auth: cannot be used with headers\.Authorization: the exchanged token is the Authorization header/);
    expect(lines.join('\n')).not.toContain('a-secret-from-env');
  });
});

describe('subject issuers of token exchange at our token endpoint (auth.oauth.tokenExchange)', () => {
  it('defaults to none, and takes issuers with an optional JWKS URL and audience', () => {
    expect(parse({}).auth.oauth.tokenExchange).toEqual({ subjectIssuers: [] });
    const c = parse({ auth: { oauth: { tokenExchange: { subjectIssuers: [{ issuer: 'https://a.example', jwksUri: 'https://a.example/.well-known/jwks.json' }] } } } });
    expect(c.auth.oauth.tokenExchange.subjectIssuers).toEqual([{ issuer: 'https://a.example', jwksUri: 'https://a.example/.well-known/jwks.json' }]);
  });

  it('refuses an issuer that is not an http(s) URL', () => {
    expect(problemLines(configErrorOf(() => parse({ auth: { oauth: { tokenExchange: { subjectIssuers: [{ issuer: 'a.example' }] } } } })))[0]).toMatch(
      /^auth\.oauth\.tokenExchange\.subjectIssuers\[0\]\.issuer: must be an absolute http/,
    );
  });
});
