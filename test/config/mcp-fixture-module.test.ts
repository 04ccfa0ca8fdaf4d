import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { configErrorOf, problemLines, tempDir, writeFile } from './helpers.js';

describe('mcp.fixtureModule', () => {
  it('is absent by default', () => {
    expect(parseConfig({}, { cwd: tempDir(), env: {} }).mcp.fixtureModule).toBeUndefined();
  });

  it('resolves against the config directory, like agents[].module', () => {
    const cwd = tempDir();
    writeFile(cwd, 'support/fixtures.js', 'export default {};\n');
    expect(parseConfig({ mcp: { fixtureModule: './support/fixtures.js' } }, { cwd, env: {} }).mcp.fixtureModule).toBe(path.join(cwd, 'support/fixtures.js'));
  });

  it('reports a module that does not exist with its resolved path', () => {
    const cwd = tempDir();
    const error = configErrorOf(() => parseConfig({ mcp: { fixtureModule: 'nope.ts' } }, { cwd, env: {} }));
    expect(error.problems).toEqual([{ path: 'mcp.fixtureModule', message: `file not found: ${path.join(cwd, 'nope.ts')} (relative paths start at ${cwd})` }]);
  });

  it('replaces mcp.conformanceFixtures: any value of the old key is an error naming the new one', () => {
    for (const value of [true, false]) {
      const error = configErrorOf(() => parseConfig({ mcp: { conformanceFixtures: value } }, { cwd: tempDir(), env: {} }));
      expect(problemLines(error)).toEqual([
        `mcp.conformanceFixtures: replaced by mcp.fixtureModule, the path of a test-only MCP fixture module (the conformance fixtures: test/support/mcp-conformance/fixture-module.ts); remove this key (got ${value})`,
      ]);
    }
  });
});
