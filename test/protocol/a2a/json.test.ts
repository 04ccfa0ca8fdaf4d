/**
 * toJsonValue / toJsonObject: the value itself comes back (no copy), and the compiler refuses what
 * JSON cannot carry. The @ts-expect-error lines are the test of the type; `npm run typecheck`
 * fails if one of them compiles.
 */
import { describe, expect, it } from 'vitest';
import { toJsonObject, toJsonValue } from '../../../src/protocol/a2a/json.js';
import type { Task } from '../../../src/protocol/a2a/types.js';

interface Profile {
  name: string;
  rowCount?: number;
  columns: Array<{ name: string; type: string; min?: string | number | null }>;
}

describe('toJsonValue / toJsonObject', () => {
  it('hands back the same value, unchanged', () => {
    const p: Profile = { name: 'orders', columns: [{ name: 'id', type: 'INTEGER', min: 1 }] };
    expect(toJsonValue(p)).toBe(p);
    expect(toJsonValue([p])).toEqual([p]);
    const task: Task = { id: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } };
    expect(toJsonObject(task)).toBe(task);
    expect(JSON.stringify(toJsonValue({ a: 1, b: undefined }))).toBe('{"a":1}');
  });

  it('does not compile for values JSON cannot carry', () => {
    // @ts-expect-error a function
    toJsonValue({ f: () => 1 });
    // @ts-expect-error a Date (a class instance with methods)
    toJsonValue({ at: new Date(0) });
    // @ts-expect-error a bigint
    toJsonValue({ n: 1n });
    // @ts-expect-error a Map
    toJsonValue(new Map());
    // @ts-expect-error a function deep inside
    toJsonValue([{ x: { y: [() => 1] } }]);
    // @ts-expect-error not an object
    toJsonObject('text');
  });
});
