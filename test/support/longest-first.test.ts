/**
 * The order `npm test` starts test files in (test/support/longest-first.ts, longest-first-order.ts): the longest first,
 * and a file test/durations.json does not know yet among files of the median time, not ahead of
 * the long ones.
 */
import { describe, expect, it } from 'vitest';
import { longestFirst } from './longest-first-order.js';

const seconds: Record<string, number> = { image: 300, scaffold: 120, small: 2, tiny: 1, mid: 20 };
const order = (files: string[]) => longestFirst(files, (f) => seconds[f]);

describe('longestFirst', () => {
  it('starts the longest file first and the shortest last', () => {
    expect(order(['tiny', 'mid', 'image', 'small', 'scaffold'])).toEqual(['image', 'scaffold', 'mid', 'small', 'tiny']);
  });

  it('places a file without a time at the median of the known ones, after the long files', () => {
    // known: 1, 2, 20, 120, 300 → median 20; the new file ties with `mid` and keeps its place before it
    expect(order(['new', 'tiny', 'mid', 'image', 'small', 'scaffold'])).toEqual(['image', 'scaffold', 'new', 'mid', 'small', 'tiny']);
  });

  it('keeps the given order among equal times and when no file has a time', () => {
    expect(order(['b', 'a', 'c'])).toEqual(['b', 'a', 'c']);
    expect(longestFirst(['x', 'y'], () => 5)).toEqual(['x', 'y']);
  });
});
