/**
 * The pieces of the usage query string that the route and the CLI share: instants (durations back
 * from now, ISO dates read as UTC), dimension lists, filter values, and Accept negotiation.
 */
import { describe, expect, it } from 'vitest';
import { filterValues, formatFromAccept, parseDimensions, parseInstant } from '../../../src/bindings/management/usage-params.js';

const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);

describe('parseInstant', () => {
  it('reads durations back from now', () => {
    expect(parseInstant('7d', NOW)).toBe(NOW - 7 * 86_400_000);
    expect(parseInstant('12h', NOW)).toBe(NOW - 12 * 3_600_000);
    expect(parseInstant('30m', NOW)).toBe(NOW - 30 * 60_000);
    expect(parseInstant('2w', NOW)).toBe(NOW - 14 * 86_400_000);
    expect(parseInstant('90s', NOW)).toBe(NOW - 90_000);
  });

  it('reads ISO dates and date-times as UTC unless they carry an offset', () => {
    expect(parseInstant('2026-01-02', NOW)).toBe(Date.UTC(2026, 0, 2));
    expect(parseInstant('2026-01-02T03:04', NOW)).toBe(Date.UTC(2026, 0, 2, 3, 4));
    expect(parseInstant('2026-01-02T03:04:05.5', NOW)).toBe(Date.UTC(2026, 0, 2, 3, 4, 5, 500));
    expect(parseInstant('2026-01-02T03:04:05+02:00', NOW)).toBe(Date.UTC(2026, 0, 2, 1, 4, 5));
  });

  it('refuses anything else', () => {
    for (const t of ['', 'yesterday', '7 days', '7y', '-1d', '2026-02-30x', '2026-13-01', '1700000000000']) expect(parseInstant(t, NOW)).toBeUndefined();
  });
});

describe('parseDimensions and filterValues', () => {
  it('keeps the order of the dimensions and skips empty items', () => {
    expect(parseDimensions('by', 'tool, agent,')).toEqual(['tool', 'agent']);
    expect(parseDimensions('by', '')).toEqual([]);
  });

  it('splits values, dedupes them, and reads an empty item as "no value"', () => {
    expect(filterValues(['a,b', 'a', ''])).toEqual(['a', 'b', null]);
  });
});

describe('formatFromAccept', () => {
  it('picks the most preferred of json, csv and ndjson, json otherwise', () => {
    expect(formatFromAccept(undefined)).toBe('json');
    expect(formatFromAccept('text/csv')).toBe('csv');
    expect(formatFromAccept('application/x-ndjson')).toBe('ndjson');
    expect(formatFromAccept('application/ndjson')).toBe('ndjson');
    expect(formatFromAccept('application/json;q=0.5, text/csv')).toBe('csv');
    expect(formatFromAccept('text/csv;q=0.2, application/x-ndjson;q=0.9')).toBe('ndjson');
    expect(formatFromAccept('text/html, */*;q=0.1, text/csv;q=0.05')).toBe('json');
    expect(formatFromAccept('text/csv;q=0')).toBe('json');
  });
});
