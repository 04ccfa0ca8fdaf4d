import { describe, expect, it } from 'vitest';
import { DEFAULT_CLOCK_SKEW_SECONDS } from '../../src/config/config.js';
import { parseConfig } from '../../src/config/index.js';
import { configErrorOf, problemLines, tempDir } from './helpers.js';

const parse = (input: unknown, env: Record<string, string> = {}) => parseConfig(input, { cwd: tempDir(), env });
const SECRET = 'x'.repeat(40);

describe('auth: token issuers, shared secret, audience, clock skew', () => {
  it('defaults to no external issuers, no shared secret, the public URL as audience and 60 s of skew', () => {
    const { auth } = parse({});
    expect(auth.issuers).toBeUndefined();
    expect(auth.sharedSecret).toBeUndefined();
    expect(auth.audience).toBeUndefined();
    expect(auth.clockSkewSeconds).toBeUndefined();
    expect(DEFAULT_CLOCK_SKEW_SECONDS).toBe(60);
  });

  it('resolves an external issuer with one audience to a list, and defaults its algorithms', () => {
    const { auth } = parse({ auth: { issuers: [{ issuer: 'https://idp.example.com/', audience: 'agentport' }] } });
    expect(auth.issuers).toEqual([{ issuer: 'https://idp.example.com/', audience: ['agentport'], algorithms: ['RS256', 'ES256'] }]);
  });

  it('keeps an explicit JWKS URL, audience list and algorithms', () => {
    const { auth } = parse({
      auth: { issuers: [{ issuer: 'https://idp.example.com', audience: ['a', 'b'], jwksUri: 'https://idp.example.com/keys', algorithms: ['ES384'] }] },
    });
    expect(auth.issuers?.[0]).toEqual({ issuer: 'https://idp.example.com', audience: ['a', 'b'], jwksUri: 'https://idp.example.com/keys', algorithms: ['ES384'] });
  });

  it('takes the shared secret from the environment', () => {
    const { auth } = parse({ auth: { sharedSecret: { secret: '${AP_SECRET}', issuer: 'minter', audience: 'agentport' } } }, { AP_SECRET: SECRET });
    expect(auth.sharedSecret).toEqual({ secret: SECRET, issuer: 'minter', audience: ['agentport'] });
  });

  it('refuses a short shared secret without printing it', () => {
    const error = configErrorOf(() => parse({ auth: { sharedSecret: { secret: 'short-secret-value' } } }));
    const lines = problemLines(error);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^auth\.sharedSecret\.secret: must be at least 32 characters/);
    expect(error.message).not.toContain('short-secret-value');
  });

  it('sets audience and clock skew, and bounds the skew', () => {
    const { auth } = parse({ auth: { audience: 'https://agents.example.com', clockSkewSeconds: '30' } });
    expect(auth.audience).toEqual(['https://agents.example.com']);
    expect(auth.clockSkewSeconds).toBe(30);
    const error = configErrorOf(() => parse({ auth: { clockSkewSeconds: 3600 } }));
    expect(problemLines(error)).toEqual(['auth.clockSkewSeconds: must be an integer from 0 to 600 (got 3600)']);
  });

  it('refuses an issuer that is not an http(s) URL and an unknown algorithm, naming the key', () => {
    const error = configErrorOf(() =>
      parse({
        auth: {
          issuers: [
            { issuer: 'idp', audience: 'a' },
            { issuer: 'https://x', audience: 'a', algorithms: ['HS256'] },
          ],
        },
      }),
    );
    expect(error.problems.map((p) => p.path)).toEqual(['auth.issuers[0].issuer', 'auth.issuers[1].algorithms[0]']);
  });

  it('keeps the existing API keys working next to the new keys', () => {
    const { auth } = parse({ auth: { apiKeys: [{ key: 'k'.repeat(20), subject: 'ops' }], clockSkewSeconds: 5 } });
    expect(auth.apiKeys).toEqual([{ key: 'k'.repeat(20), subject: 'ops', scopes: [] }]);
  });
});
