import { describe, expect, it } from 'vitest';
import { uuidv7 } from '../../../src/core/ids/uuid-v7.js';

const RFC_9562_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The Unix milliseconds in an id's first 48 bits (RFC 9562 §5.7). */
const millisOf = (id: string) => Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

describe('uuidv7', () => {
  it('writes RFC 9562 version-7 ids stamped with the current millisecond', () => {
    const before = Date.now();
    const id = uuidv7();
    const after = Date.now();
    expect(id).toMatch(RFC_9562_V7);
    expect(millisOf(id)).toBeGreaterThanOrEqual(before);
    // the counter may have carried into a later millisecond within a very busy one
    expect(millisOf(id)).toBeLessThanOrEqual(after + 1);
  });

  it('gives distinct ids in strictly increasing order, across refills of its random pool', () => {
    const ids = Array.from({ length: 5000 }, () => uuidv7());
    for (const id of ids) expect(id).toMatch(RFC_9562_V7);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('returns a string of its own each time (the id is not a view of a reused buffer)', () => {
    const first = uuidv7();
    const copy = `${first}`;
    uuidv7();
    expect(first).toBe(copy);
  });
});
