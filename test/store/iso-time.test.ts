import { describe, expect, it } from 'vitest';
import { parseIsoTime } from '../../src/store/iso-time.js';

describe('parseIsoTime', () => {
  it("is Date.parse's result for the core's timestamps, one every 99,700,013 ms from 1970 to 2100", () => {
    const end = Date.UTC(2100, 0, 1);
    let n = 0;
    for (let ms = 0; ms < end; ms += 99_700_013) {
      const text = new Date(ms).toISOString();
      expect(parseIsoTime(text)).toBe(ms);
      n++;
    }
    expect(n).toBeGreaterThan(40_000);
  });

  it('is Date.parse, NaN included, for month ends, leap days, out-of-range fields and other forms', () => {
    const texts = [
      '2024-02-29T12:00:00.000Z',
      '2023-02-29T12:00:00.000Z',
      '2000-02-29T00:00:00.000Z',
      '2100-02-29T00:00:00.000Z',
      '2026-04-31T00:00:00.000Z',
      '2026-12-31T23:59:59.999Z',
      '2026-13-01T00:00:00.000Z',
      '2026-00-10T00:00:00.000Z',
      '2026-01-00T00:00:00.000Z',
      '2026-01-01T24:00:00.000Z',
      '2026-01-01T23:60:00.000Z',
      '2026-01-01T23:59:60.000Z',
      '0099-01-01T00:00:00.000Z',
      '1969-12-31T23:59:59.999Z',
      '2026-01-01T00:00:00.000+01:00',
      '2026-01-01T00:00:00Z',
      '2026-01-01',
      '2026-0a-01T00:00:00.000Z',
      '2026-01-01T00:00:00.00aZ',
      '+002026-01-01T00:00:00.000Z',
      'not a date',
      '',
    ];
    for (const t of texts) expect(parseIsoTime(t), t).toBe(Date.parse(t));
  });
});
