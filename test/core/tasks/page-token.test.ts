/** ListTasks page tokens: the keyset position, and the total the listing's first page reported. */
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../../src/core/tasks/page-token.js';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('page tokens', () => {
  it('round-trips the position and the total', () => {
    expect(decodeCursor(encodeCursor({ statusTime: 1_700_000_000_000, taskId: 't-1', total: 1_000_000 }))).toEqual({ statusTime: 1_700_000_000_000, taskId: 't-1', total: 1_000_000 });
  });

  it('still reads a token without a total (issued before totals were carried): the page counts', () => {
    expect(decodeCursor(b64([5, 't-2']))).toEqual({ statusTime: 5, taskId: 't-2' });
  });

  it('rejects a total that is not a non-negative integer with InvalidParams', () => {
    for (const total of [-1, 1.5, '3', null, 2 ** 60]) {
      expect(() => decodeCursor(b64([5, 't-3', total]))).toThrow(/page token/);
    }
    expect(() => decodeCursor(b64([5, 't-3', 1, 2]))).toThrow(/page token/);
  });
});
