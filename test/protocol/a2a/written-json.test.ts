import { describe, expect, it } from 'vitest';
import type { Task } from '../../../src/protocol/a2a/types.js';
import { hasWrittenJson, resultJson, writeJson } from '../../../src/protocol/a2a/written-json.js';

function task(): Task {
  return {
    id: 't-1',
    contextId: 'c-1',
    status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-11-29T12:00:00.000Z' },
    artifacts: [{ artifactId: 'a-1', parts: [{ text: 'héllo "quoted" \u2028' }] }],
    history: [{ messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hello' }], contextId: 'c-1', taskId: 't-1' }],
  };
}

// written out by hand: the task above as JSON, fields in their order
const TASK_TEXT =
  '{"id":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED","timestamp":"2026-11-29T12:00:00.000Z"},' +
  '"artifacts":[{"artifactId":"a-1","parts":[{"text":"héllo \\"quoted\\" \u2028"}]}],' +
  '"history":[{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"hello"}],"contextId":"c-1","taskId":"t-1"}]}';

describe('written JSON', () => {
  it('writes a value as its JSON text and remembers that it was written', () => {
    const t = task();
    expect(hasWrittenJson(t)).toBe(false);
    expect(writeJson(t)).toBe(TASK_TEXT);
    expect(hasWrittenJson(t)).toBe(true);
    expect(hasWrittenJson(task())).toBe(false);
  });

  it('encodes a SendMessage result around a written task with the text written, not a new serialisation', () => {
    const t = task();
    writeJson(t);
    expect(resultJson({ task: t })).toBe(`{"task":${TASK_TEXT}}`);
    // A written value must not change (writeJson's contract); changing one shows which text is used.
    t.status = { state: 'TASK_STATE_FAILED' };
    expect(resultJson({ task: t })).toBe(`{"task":${TASK_TEXT}}`);
    expect(resultJson(t)).toBe(TASK_TEXT);
  });

  it('serialises a value again when it is written again', () => {
    const t = task();
    writeJson(t);
    t.status = { state: 'TASK_STATE_FAILED' };
    const again = writeJson(t);
    expect(again).toBe(TASK_TEXT.replace('{"state":"TASK_STATE_COMPLETED","timestamp":"2026-11-29T12:00:00.000Z"}', '{"state":"TASK_STATE_FAILED"}'));
    expect(resultJson({ task: t })).toBe(`{"task":${again}}`);
  });

  it('serialises whatever was not written, and a result with more than the written task, whole', () => {
    const t = task();
    expect(resultJson({ task: t })).toBe(`{"task":${TASK_TEXT}}`);
    writeJson(t);
    expect(resultJson({ task: t, extra: 1 })).toBe(`{"task":${TASK_TEXT},"extra":1}`);
    expect(resultJson({ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [] } })).toBe('{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[]}}');
    expect(resultJson({ task: null })).toBe('{"task":null}');
    expect(resultJson([1, 'a'])).toBe('[1,"a"]');
  });

  it('keeps the text off every copy: a spread, Object.assign or structuredClone of a written value is not written', () => {
    const t = task();
    writeJson(t);
    const copies: Task[] = [{ ...t }, Object.assign({}, t), structuredClone(t)];
    for (const c of copies) {
      expect(hasWrittenJson(c)).toBe(false);
      c.status = { state: 'TASK_STATE_FAILED' };
      // serialised as it is, not the text of the value it was copied from
      expect(resultJson({ task: c })).toBe(`{"task":${TASK_TEXT.replace('{"state":"TASK_STATE_COMPLETED","timestamp":"2026-11-29T12:00:00.000Z"}', '{"state":"TASK_STATE_FAILED"}')}}`);
    }
  });

  it('leaves the written value as it was to every reader but resultJson: same keys, equal to the unwritten value', () => {
    const t = task();
    writeJson(t);
    expect(Object.keys(t)).toEqual(['id', 'contextId', 'status', 'artifacts', 'history']);
    expect(t).toStrictEqual(task());
    expect(JSON.stringify(t)).toBe(TASK_TEXT);
  });

  it('serialises a frozen value each time it is answered (it cannot carry its text)', () => {
    const t = Object.freeze(task());
    expect(writeJson(t)).toBe(TASK_TEXT);
    expect(hasWrittenJson(t)).toBe(false);
    expect(resultJson({ task: t })).toBe(`{"task":${TASK_TEXT}}`);
  });
});
