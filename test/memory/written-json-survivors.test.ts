import { describe, expect, it } from 'vitest';
import { youngGenerationProbe } from '../support/young-generation.js';
import { writeJson } from '../../src/protocol/a2a/written-json.js';

/**
 * Why a written value's text is kept on the value, not in a WeakMap (src/protocol/a2a/written-json.ts,
 * ADR 0064): the text of a task that died before the next young-generation collection must not be
 * copied by it. Through a long-lived WeakMap it was (~0.45 KB a blocking SendMessage).
 */
describe('the texts of written values and the young-generation collector (ADR 0064)', () => {
  const { gc, newSpaceUsed } = youngGenerationProbe();
  const VALUES = 2_000;

  it('does not keep the text of a dead written value through a scavenge', () => {
    // warm-up: whatever writeJson keeps for the process (a table, a symbol) is old before counting
    for (let i = 0; i < VALUES; i++) writeJson({ id: `warm-${i}`, text: 'x'.repeat(400) + i });
    gc({ type: 'major' });
    gc({ type: 'major' });
    gc({ type: 'minor' });
    let written = 0;
    for (let i = 0; i < VALUES; i++) written += writeJson({ id: `task-${i}`, text: 'x'.repeat(400) + i }).length;
    gc({ type: 'minor' });
    const survived = newSpaceUsed();
    // ~0.86 MB of texts written (each ~430 characters); through a WeakMap keyed by the value
    // ~1.3 MB survived (texts and values), on the value ~3 KB (Node 20).
    expect(written).toBeGreaterThan(VALUES * 400);
    expect(survived).toBeLessThan(written / 10);
  });
});
