import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/config/primitives.js';

describe('parseDuration (config durations, and the usage API relative times)', () => {
  it('reads every unit', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('5m')).toBe(300_000);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(parseDuration('7d')).toBe(7 * 86_400_000);
    expect(parseDuration('2w')).toBe(14 * 86_400_000);
    expect(parseDuration('250')).toBe(250);
  });

  it('refuses what is not a duration', () => {
    expect(parseDuration('7 days')).toBeUndefined();
    expect(parseDuration('1y')).toBeUndefined();
    expect(parseDuration('')).toBeUndefined();
  });
});
