import { describe, expect, it } from 'vitest';
import { isoTimestamp } from '../../src/core/iso-timestamp.js';

describe('isoTimestamp', () => {
  it('writes every millisecond as Date.prototype.toISOString does', () => {
    const samples = [0, 1, 999, 1000, 59_999, 60_000, 3_599_999, 86_399_999, 86_400_000, 951_782_400_000, 1_798_761_599_999, 253_402_300_799_999];
    // days apart and within one day, so the kept date part is both reused and replaced
    let ms = 1_764_000_000_000;
    for (let i = 0; i < 2000; i++) {
      ms += (i * 7_919_113) % 90_000_000;
      samples.push(ms, ms + 1, ms + 86_400_000 * (i % 3));
    }
    for (const s of samples) expect(isoTimestamp(s)).toBe(new Date(s).toISOString());
  });

  it('leaves times outside 1970–9999 and fractions of a millisecond to toISOString', () => {
    for (const s of [-1, -86_400_001, 253_402_300_800_000, 8.64e15, 1_764_000_000_000.7]) expect(isoTimestamp(s)).toBe(new Date(s).toISOString());
    expect(() => isoTimestamp(Number.NaN)).toThrow(RangeError);
  });

  it('gives each millisecond its own text when calls go back and forth between seconds and days', () => {
    const base = 1_764_000_000_123;
    const order = [base, base, base + 1, base + 1000, base + 1, base - 1000, base + 86_400_000, base + 1, base + 1, base + 999, base + 998];
    for (const s of order) expect(isoTimestamp(s)).toBe(new Date(s).toISOString());
  });

  it('is now by default', () => {
    const before = Date.now();
    const stamped = Date.parse(isoTimestamp());
    expect(stamped).toBeGreaterThanOrEqual(before);
    expect(stamped).toBeLessThanOrEqual(Date.now());
  });
});
