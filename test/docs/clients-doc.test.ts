/**
 * docs/clients.md shows code the interop matrix runs: every line of each ```js snippet is a line
 * (trimmed) of test/interop/clients/mcp-client-run.mjs or a2a-client-run.mjs, and every client of
 * the matrix has its section.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const doc = readFileSync(path.join(root, 'docs/clients.md'), 'utf8');
const runners = ['mcp-client-run.mjs', 'a2a-client-run.mjs'].map((f) => readFileSync(path.join(root, 'test/interop/clients', f), 'utf8'));
const runnerLines = new Set(runners.flatMap((r) => r.split('\n').map((l) => l.trim())));

describe('docs/clients.md', () => {
  it('every snippet line is code the matrix runs', () => {
    const snippets = [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(snippets.length).toBeGreaterThanOrEqual(8);
    const missing = snippets.flatMap((s) =>
      s
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '' && !runnerLines.has(l)),
    );
    expect(missing).toEqual([]);
  });

  it('has a section for each client of the matrix', () => {
    const sections = [...doc.matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
    for (const name of ['@ai-sdk/mcp', '@langchain/mcp-adapters', '@openai/agents', '@mastra/mcp', 'mcp-remote', 'Mastra client-js', 'RemoteA2AAgent', 'a2a-ai-provider']) {
      expect(sections.some((s) => s.includes(name))).toBe(true);
    }
  });
});
