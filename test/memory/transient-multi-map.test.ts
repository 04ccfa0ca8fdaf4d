import { describe, expect, it } from 'vitest';
import { TransientMultiMap } from '../../src/memory/transient-multi-map.js';

describe('TransientMultiMap', () => {
  const a = { name: 'a' };
  const b = { name: 'b' };
  const c = { name: 'c' };

  it('holds one value or several per key, by identity', () => {
    const m = new TransientMultiMap<{ name: string }>();
    expect(m.count('k')).toBe(0);
    m.add('k', a);
    expect([m.count('k'), m.only('k'), m.size]).toEqual([1, a, 1]);
    m.add('k', b);
    m.add('j', c);
    expect([m.count('k'), m.only('k'), m.size]).toEqual([2, undefined, 2]);
    expect(
      m
        .all()
        .map((v) => v.name)
        .sort(),
    ).toEqual(['a', 'b', 'c']);
    // an equal object that is not the one added is not there
    expect(m.remove('k', { name: 'a' })).toBe(false);
    expect(m.remove('k', a)).toBe(true);
    expect([m.count('k'), m.only('k')]).toEqual([1, b]);
    expect(m.remove('k', a)).toBe(false);
    expect(m.remove('k', b)).toBe(true);
    expect([m.count('k'), m.size]).toEqual([0, 1]);
    expect(m.remove('j', b)).toBe(false);
    expect(m.remove('j', c)).toBe(true);
    expect([m.size, m.all()]).toEqual([0, []]);
  });

  it('empties a key whose several values all left, and lets all() be walked while removing', () => {
    const m = new TransientMultiMap<{ name: string }>();
    m.add('k', a);
    m.add('k', b);
    m.add('k', c);
    for (const v of m.all()) m.remove('k', v);
    expect([m.size, m.count('k'), m.all()]).toEqual([0, 0, []]);
  });
});
