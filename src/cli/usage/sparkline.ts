/**
 * A row's calls over time in one line of block characters: each bucket scaled against the row's
 * own largest, so the shape shows (not the size, which the CALLS column shows). A bucket with no
 * calls is a space, so that "nothing" and "a little" look different; any call draws at least ▁.
 */
export const SPARK_BARS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'] as const;

export function sparkline(values: readonly number[]): string {
  const max = Math.max(0, ...values);
  return values
    .map((v) => {
      if (!(v > 0) || max === 0) return ' ';
      const level = Math.ceil((v / max) * SPARK_BARS.length) - 1;
      return SPARK_BARS[Math.min(SPARK_BARS.length - 1, Math.max(0, level))];
    })
    .join('');
}
