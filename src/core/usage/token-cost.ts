/**
 * What reported tokens cost by a price table (`agents[].skills[id].cost`, `agents[].llm.price`).
 * Providers count cached prompt tokens inside the prompt (OpenAI's prompt_tokens holds
 * cached_tokens; the Anthropic provider adds cache reads and writes to input_tokens), and bill
 * them at their own rates: a cache read at a fraction of a prompt token, an Anthropic cache write
 * at a premium. Each has its price here, the prompt token's when the table has none.
 */
import type { SkillCostConfig } from '../../config/usage-schema.js';
import type { ReportedUsage } from './usage-draft.js';

export function tokenCost(price: SkillCostConfig | undefined, u: ReportedUsage | undefined): number {
  if (!price || !u) return 0;
  const prompt = price.perPromptToken ?? 0;
  const uncached = Math.max(0, u.promptTokens - u.cachedTokens - u.cacheWriteTokens);
  return uncached * prompt + u.cachedTokens * (price.perCachedPromptToken ?? prompt) + u.cacheWriteTokens * (price.perCacheWriteToken ?? prompt) + u.completionTokens * (price.perCompletionToken ?? 0);
}
