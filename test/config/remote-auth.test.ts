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

  it('is not taken on an MCP remote yet (its shared session has caller-less requests)', () => {
    expect(problemLines(configErrorOf(() => parse(mcp({ auth: { kind: 'signed-identity' } }))))[0]).toMatch(/^agents\[0\]\.mcp\.auth: unknown key/);
  });

  it('names an unknown kind and a lifetime out of range', () => {
    expect(problemLines(configErrorOf(() => parse(remote({ auth: { kind: 'shared-secret' } }))))[0]).toMatch(/^agents\[0\]\.remote\.auth\.kind: /);
    expect(problemLines(configErrorOf(() => parse(remote({ auth: { kind: 'signed-identity', ttlSeconds: 5 } }))))[0]).toMatch(/^agents\[0\]\.remote\.auth\.ttlSeconds: must be an integer from 10 to 3600/);
  });
});
