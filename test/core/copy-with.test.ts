import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { copyWith } from '../../src/core/copy-with.js';

/** V8's own answer to "do these two objects share a hidden class" (natives syntax, enabled for this check only). */
function sharesHiddenClass(): (a: object, b: object) => boolean {
  setFlagsFromString('--allow-natives-syntax');
  return new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
}

describe('copyWith', () => {
  it('is the spread: base keys in their order, a field already there replaced in place, new fields last', () => {
    const base = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' }, history: [] as string[] };
    const copy = copyWith(base, { status: { state: 'TASK_STATE_COMPLETED' }, metadata: { a: 1 } });
    expect(JSON.stringify(copy)).toBe('{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"},"history":[],"metadata":{"a":1}}');
    expect(copy).not.toBe(base);
    expect(base.status.state).toBe('TASK_STATE_WORKING');
    expect(copy.history).toBe(base.history);
  });

  it('keeps an own __proto__ key of a parsed document as a key, never as the prototype', () => {
    const parsed = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    const copy = copyWith(parsed, { b: 2 });
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"polluted":true},"a":1,"b":2}');
  });

  it('gives copies of objects of one shape one hidden class (a spread with an added field gives each its own)', () => {
    const same = sharesHiddenClass();
    const agent = { id: 'echo' };
    const contextOf = (i: number) => ({ agentId: 'echo', principal: { subject: 's' }, requestedExtensions: [], usage: { n: i } });
    const first = copyWith(contextOf(0), { agent });
    let shared = 0;
    // V8 caches the first few clones; the per-object hidden classes appear after them.
    for (let i = 1; i < 200; i++) if (same(first, copyWith(contextOf(i), { agent }))) shared++;
    expect(shared).toBe(199);
  });
});
