/**
 * Figures that cannot be measured again: the blind first run of the planner over the public
 * tables' questions (public-questions.ts), taken once, before any tuning on those tables
 * (2026-11-28, commit "eval: real public tables …"). `npm run eval:table-expert` prints it beside
 * today's figures. One of its WRONG answers was the gold statement's fault (quarters labelled
 * 1–4 where the set's convention is `2015-Q1`); that gold was put to the convention after the run.
 */
import type { Tally } from './run-eval.js';

export const PUBLIC_BLIND_RUN: Tally = { total: 204, CORRECT: 57, ASKED: 0, DECLINED: 144, WRONG: 3 };

/** The held-out part (public-heldout-questions.ts), run once after tuning, before any change for it. */
export const PUBLIC_HELDOUT_FIRST_RUN: Tally = { total: 61, CORRECT: 55, ASKED: 0, DECLINED: 5, WRONG: 1 };
