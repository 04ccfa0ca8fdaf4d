/**
 * The never-silently-wrong check on an answer's shape, whoever wrote the SQL (the planner or a
 * model): a question asking for one number ("how many days had rain") answered with many rows,
 * or a question asking for figures by something ("revenue by category") answered with one bare
 * figure, is another question's answer. The caller declines it instead of returning it.
 */
import { lemma } from './lexicon.js';
import type { Vocabulary } from './vocabulary.js';

const ONE_NUMBER = /^\s*(?:how many|how much|what(?:'s| is| was| were) the (?:total|number|count|sum|average|mean|median)\b|(?:the )?total number of|number of|count of|count the)\b/i;
/** words that ask for several figures: a grouping, a comparison, a list */
const SEVERAL = /\b(?:by|per|each|every|monthly|weekly|daily|yearly|annual(?:ly)?|quarterly|over time|trend|breakdown|broken down|split|vs|versus|compared?|respectively|side by side|which|list|and how many)\b/i;
/** "by X" asks for a figure per X; "per X" is as often a ratio ("items per order"), so it is not read as one */
const GROUPED_BY = /\b(?:by|for each|for every)\s+([\p{L}][\p{L}\p{N}_'-]*(?:\s+[\p{L}][\p{L}\p{N}_'-]*)?)/giu;

/** Whether the question asks for a single number (one row). */
export function asksForOneNumber(question: string): boolean {
  return ONE_NUMBER.test(question) && !SEVERAL.test(question);
}

/** The column or table a "by X" in the question names (not a value: "solved by Alice" is a filter). */
function groupedBy(question: string, vocab: Vocabulary): string | undefined {
  for (const m of question.matchAll(GROUPED_BY)) {
    const words = m[1]!.toLowerCase().split(/\s+/).map(lemma);
    for (const phrase of [words.join(' '), words[0]!]) {
      const meanings = vocab.phrases.get(phrase);
      if (meanings?.length && meanings.every((x) => x.kind === 'column' || x.kind === 'table')) return phrase;
    }
  }
  return undefined;
}

/** Why the answer's shape does not fit the question, or undefined when it fits. */
export function shapeMismatch(question: string, result: { rowCount: number; columns: readonly unknown[] }, vocab: Vocabulary): string | undefined {
  if (result.rowCount > 1 && asksForOneNumber(question)) {
    return `the question asks for one number, but the query I could write returns ${result.rowCount} rows; ask for the number in so many words (e.g. "how many … in total") or say what to break it down by`;
  }
  const by = groupedBy(question, vocab);
  if (by && result.rowCount === 1 && result.columns.length === 1) {
    return `the question asks for figures by ${by}, but the query I could write returns one figure; name what to measure and "by ${by}" again`;
  }
  return undefined;
}
