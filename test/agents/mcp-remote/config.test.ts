/** `agents[].mcp` and `mcp.genericTools` in the configuration: defaults, ${ENV}, and errors that name the key. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/index.js';
import { configErrorOf, problemLines, tempDir } from '../../config/helpers.js';

const parse = (input: unknown, env: Record<string, string> = {}) => parseConfig(input, { cwd: tempDir(), env });

describe('agents[].mcp', () => {
  it('resolves with defaults, headers substituted from the environment', () => {
    const config = parse({ agents: [{ id: 'tools', mcp: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } } }] }, { TOKEN: 's3cret' });
    expect(config.agents[0]!.mcp).toEqual({
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: 'Bearer s3cret' },
      era: 'auto',
      allowlist: [],
      callTimeoutMs: 60_000,
      connectTimeoutMs: 10_000,
      refreshIntervalMs: 300_000,
    });
    expect(config.agents[0]!.builtin).toBeUndefined();
    expect(config.mcp).toMatchObject({ genericTools: false });
  });

  it('names the key of each problem', () => {
    const err = configErrorOf(() =>
      parse({
        agents: [
          { id: 'a', mcp: { url: 'ftp://x' } },
          { id: 'b', mcp: { url: 'https://x/mcp', era: 'future', allowlist: ['not a host!'], surprise: 1 } },
          { id: 'c', module: './x.js', mcp: { url: 'https://x/mcp' } },
        ],
      }),
    );
    const lines = problemLines(err);
    expect(lines.some((l) => l.startsWith('agents[0].mcp.url:'))).toBe(true);
    expect(lines.some((l) => l.startsWith('agents[1].mcp.era:'))).toBe(true);
    expect(lines.some((l) => l.startsWith('agents[1].mcp.allowlist[0]:'))).toBe(true);
    expect(lines.some((l) => l.startsWith('agents[1].mcp') && l.includes('surprise'))).toBe(true);
    expect(lines).toContain('agents[2]: set either mcp or module, not both');
  });
});
