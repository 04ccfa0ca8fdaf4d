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
/**
 * The fresh held-out part (public-fresh-questions.ts), committed before it ran, run once after the
 * issue-31 follow-up (asking before declining, counting nouns, answer shape, dates at load). Its six
 * DECLINED: "orders"/"countries" ranked by count in a flat or fact table, "contacted in June" (a
 * month column with no date), "call duration", "highest volume" with no measure placed, "use".
 */
export const PUBLIC_FRESH_FIRST_RUN: Tally = { total: 64, CORRECT: 58, ASKED: 0, DECLINED: 6, WRONG: 0 };

export const PUBLIC_HELDOUT_FIRST_RUN: Tally = { total: 61, CORRECT: 55, ASKED: 0, DECLINED: 5, WRONG: 1 };
