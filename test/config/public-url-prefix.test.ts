/**
 * `server.publicUrl` with a path prefix: accepted when the server can tell the prefix from its own
 * routes (both proxy styles, stripped or not, then work), refused with the key named otherwise.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { ROOT_SEGMENTS } from '../../src/config/public-url-prefix.js';
import { openApiDocument } from '../../src/bindings/openapi/document.js';
import { OAUTH_PATHS } from '../../src/auth/oauth-paths.js';
import { configErrorOf, problemLines, tempDir } from './helpers.js';

const parse = (input: unknown) => parseConfig(input, { cwd: tempDir(), env: {} });

describe('server.publicUrl with a path prefix', () => {
  it('keeps the prefix, without a trailing slash', () => {
    expect(parse({ server: { publicUrl: 'https://example.org/agentport/' } }).server.publicUrl).toBe('https://example.org/agentport');
    expect(parse({ server: { publicUrl: 'https://example.org/tools/agentport' } }).server.publicUrl).toBe('https://example.org/tools/agentport');
  });

  it.each(['/mcp', '/a2a/x', '/api', '/console', '/oauth', '/.well-known', '/MCP', '/%6Dcp'])('refuses the prefix %s, which is one of the server’s own paths', (prefix) => {
    const lines = problemLines(configErrorOf(() => parse({ server: { publicUrl: `https://example.org${prefix}` } })));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^server\.publicUrl: its path must not begin with \/[^,]+, one of the server's own paths/);
  });

  it('names every root path the server serves (OpenAPI document and OAuth endpoints)', () => {
    const paths = [...Object.keys(openApiDocument('test').paths as object), ...Object.values(OAUTH_PATHS)];
    const segments = new Set(paths.map((p) => p.split('/')[1]!).filter((s) => s !== ''));
    expect([...segments].filter((s) => !ROOT_SEGMENTS.includes(s))).toEqual([]);
  });
});
