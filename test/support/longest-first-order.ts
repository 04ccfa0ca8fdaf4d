/** The order of test/support/longest-first.ts as a plain function, testable without vitest's node API. */

/**
 * `files` (in vitest's own order) longest first by `secondsOf`; a file without seconds counts as
 * the median of those with them. Equal times keep vitest's order.
 */
export function longestFirst<F>(files: readonly F[], secondsOf: (file: F) => number | undefined): F[] {
  const known = files.map(secondsOf).filter((s): s is number => s !== undefined);
  const sorted = [...known].sort((a, b) => a - b);
  const median = sorted.length === 0 ? 0 : sorted[Math.floor((sorted.length - 1) / 2)]!;
  const ranked = files.map((file, index) => ({ file, index, seconds: secondsOf(file) ?? median }));
  return ranked.sort((a, b) => b.seconds - a.seconds || a.index - b.index).map((r) => r.file);
}
