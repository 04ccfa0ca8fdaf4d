import { describe, expect, it } from 'vitest';
import { resultBody, resultReply } from '../../../src/bindings/a2a-jsonrpc/reply.js';
import { writeJson } from '../../../src/protocol/a2a/written-json.js';

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

describe('resultReply', () => {
  // The body's bytes are counted from its parts (never the joined text): the count must be the
  // joined text's UTF-8 length whatever the id and the result hold, or the answer is cut or hangs.
  const ids: Array<string | number | null> = [1, -0, 1e21, 'req-1', 'é\u2028', '\ud800', '日本', null];
  const written = () => {
    const task = { id: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [{ artifactId: 'a', parts: [{ text: 'héllo 😀 日本' }] }] };
    writeJson(task);
    return { task };
  };
  const results: Array<[string, () => unknown]> = [
    ['a written task', written],
    ['a task not written', () => ({ task: { id: 't', status: { state: 'TASK_STATE_WORKING', message: 'ünïcode' } } })],
    [
      'a written result itself',
      () => {
        const message = { messageId: 'm', parts: [{ text: 'ß' }] };
        writeJson(message);
        return message;
      },
    ],
    ['undefined', () => undefined],
    ['a string', () => 'naïve'],
  ];
  for (const id of ids) {
    for (const [name, make] of results) {
      it(`answers ${name} under the id ${JSON.stringify(id)} with the envelope's text and its UTF-8 length`, () => {
        const result = make();
        const r = resultReply({ 'Content-Type': 'application/json' }, id, result);
        expect(r.status).toBe(200);
        expect(r.body).toBe(JSON.stringify({ jsonrpc: '2.0', id, result: result ?? null }));
        expect(r.bodyBytes).toBe(new TextEncoder().encode(r.body).length);
      });
    }
  }
});
