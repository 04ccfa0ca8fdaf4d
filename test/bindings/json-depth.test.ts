/** bindings/json-depth.ts: nesting counted without parsing, strings skipped, short texts at a glance. */
import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth } from '../../src/bindings/json-depth.js';

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('exceedsJsonDepth', () => {
  it('counts arrays and objects inside each other, up to the limit included', () => {
    expect(exceedsJsonDepth(nested(3), 3)).toBe(false);
    expect(exceedsJsonDepth(nested(4), 3)).toBe(true);
    expect(exceedsJsonDepth('{"a":{"b":[{}]}}', 3)).toBe(true);
    expect(exceedsJsonDepth('{"a":{"b":[1]}}', 3)).toBe(false);
  });

  it('skips brackets inside strings, escaped quotes included', () => {
    expect(exceedsJsonDepth('{"a":"[[[[\\"[[[["}', 2)).toBe(false);
  });

  it('a text just over the limit in length that opens one more level than allowed is refused', () => {
    // limit 3: four openers are 4 characters, the shortest text that can exceed it
    expect(exceedsJsonDepth('[[[[', 3)).toBe(true);
    expect(exceedsJsonDepth('[[[', 3)).toBe(false);
    expect(exceedsJsonDepth(nested(257))).toBe(true);
    expect(exceedsJsonDepth(nested(256))).toBe(false);
  });
});
