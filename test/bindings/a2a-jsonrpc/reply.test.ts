import { describe, expect, it } from 'vitest';
import { resultBody } from '../../../src/bindings/a2a-jsonrpc/reply.js';

describe('resultBody', () => {
  // Every id a JSON-RPC request can carry once parsed: the answer's text must be the envelope as
  // JSON.stringify writes it whole.
  const ids: Array<string | number | null> = [1, 0, -0, -7, 0.1, 1e21, 1.5e-7, 2 ** 53 + 2, 'req-1', '', 'a"b\\c\n\u2028', '\ud800', null];
  for (const id of ids) {
    it(`writes the id ${JSON.stringify(id)} as JSON.stringify writes it`, () => {
      const result = { task: { id: 't', status: { state: 'TASK_STATE_COMPLETED' } } };
      expect(resultBody(id, result)).toBe(JSON.stringify({ jsonrpc: '2.0', id, result }));
    });
  }

  it('writes an undefined result as null', () => {
    expect(resultBody(3, undefined)).toBe('{"jsonrpc":"2.0","id":3,"result":null}');
  });
});
