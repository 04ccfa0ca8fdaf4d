import { createContextKey, ROOT_CONTEXT, type Context } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../src/observability/tracing/root-context.js';

const a = createContextKey('a');
const b = createContextKey('b');

/** What a context answers for both keys. */
const read = (c: Context) => [c.getValue(a), c.getValue(b)];

describe('the root of our trace contexts', () => {
  it('answers every set, overwrite and delete as the API’s own contexts do, and leaves the context it grew from as it was', () => {
    const steps = (root: Context) => {
      const one = root.setValue(a, 1);
      const two = one.setValue(b, 'x');
      const three = two.setValue(a, 2);
      const four = three.deleteValue(a);
      const five = four.deleteValue(b).setValue(a, 3);
      return [root, one, two, three, four, five].map(read);
    };
    expect(steps(ROOT)).toEqual(steps(ROOT_CONTEXT));
    expect(steps(ROOT)).toEqual([
      [undefined, undefined],
      [1, undefined],
      [1, 'x'],
      [2, 'x'],
      [undefined, 'x'],
      [3, undefined],
    ]);
  });
});
