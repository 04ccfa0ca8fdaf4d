/**
 * The table keeps a client's text from steering the terminal: control characters in a dimension
 * value (an escape sequence in a tool name) are shown escaped, never sent as they are.
 */
import { describe, expect, it } from 'vitest';
import { printable, usageTable } from '../../../src/cli/usage/usage-table.js';

describe('printable', () => {
  it('escapes C0 and C1 control characters and leaves other text alone', () => {
    expect(printable('\x1b[2Jgone')).toBe('\\u001b[2Jgone');
    expect(printable('a\nb\u0085')).toBe('a\\u000ab\\u0085');
    expect(printable('query, "fast" ▁█')).toBe('query, "fast" ▁█');
  });

  it('the table shows a tool name with an escape sequence escaped', () => {
    const group = {
      key: { tool: '\x1b]0;pwned\x07' },
      calls: 1,
      errors: 0,
      errorRate: 0,
      latencyMs: null,
      durationMs: null,
      promptTokens: 0,
      completionTokens: 0,
      cachedTokens: 0,
      tokens: 0,
      cost: 0,
      bytesIn: 0,
      bytesOut: 0,
    };
    const out = usageTable({ from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z', groupBy: ['tool'], limit: 10, groups: [group] }, undefined, false);
    expect(out).not.toContain('\x1b');
    expect(out).toContain('\\u001b]0;pwned\\u0007');
  });
});
