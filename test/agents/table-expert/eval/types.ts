/** The evaluation set's shapes: a question as written, and as the runner uses it. */
export interface QuestionFlags {
  /** casual phrasing (chat style, abbreviations, typos) */
  c?: boolean;
  /** earlier questions of the same conversation, asked first in the same context */
  prev?: string[];
}

/** [question, gold SQL, flags] — terse so the set reads like a list of questions */
export type RawQuestion = [string, string, QuestionFlags?];

/** the generated samples, then the real public tables (public-questions.ts) */
export type DatasetName = 'retail' | 'support' | 'superstore' | 'bank' | 'stocks' | 'world' | 'countries';

export interface EvalQuestion {
  /** `retail-007`: dataset and 1-based position in its file */
  id: string;
  dataset: DatasetName;
  question: string;
  gold: string;
  casual: boolean;
  previous: string[];
  /** kept out of tuning: every fourth question of each file */
  heldOut: boolean;
  /** which set: the generated samples, the public tables (written before tuning), or their held-out part (written after) */
  part: 'sample' | 'public' | 'public-heldout' | 'public-fresh';
}

export type Verdict = 'CORRECT' | 'ASKED' | 'DECLINED' | 'WRONG';
