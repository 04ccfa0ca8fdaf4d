import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll } from 'vitest';

/**
 * For tests of what a scavenge copies (test/memory): V8's `gc` for this describe block (flag set,
 * taken from a fresh context, flag cleared after the block) and the young generation's bytes in use.
 */
export function youngGenerationProbe(): { gc: (o?: { type?: 'minor' | 'major' }) => void; newSpaceUsed: () => number } {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (o?: { type?: 'minor' | 'major' }) => void;
  afterAll(() => setFlagsFromString('--no-expose-gc'));
  const newSpaceUsed = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_used_size;
  return { gc, newSpaceUsed };
}
