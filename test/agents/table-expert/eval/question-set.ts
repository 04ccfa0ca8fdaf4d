/**
 * The evaluation set: the retail and support questions with ids, and the held-out part. Every
 * fourth question of each file (positions 4, 8, 12, …) is held out: the planner was not tuned on
 * its results (the runner hides their details unless asked).
 */
import { RETAIL } from './retail-questions.js';
import { SUPPORT } from './support-questions.js';
import type { DatasetName, EvalQuestion, RawQuestion } from './types.js';

const HELD_OUT_EVERY = 4;

function build(dataset: DatasetName, raw: RawQuestion[]): EvalQuestion[] {
  return raw.map(([question, gold, flags], i) => ({
    id: `${dataset}-${String(i + 1).padStart(3, '0')}`,
    dataset,
    question,
    gold,
    casual: flags?.c ?? false,
    previous: flags?.prev ?? [],
    heldOut: (i + 1) % HELD_OUT_EVERY === 0,
  }));
}

export const EVAL_SET: readonly EvalQuestion[] = [...build('retail', RETAIL), ...build('support', SUPPORT)];
