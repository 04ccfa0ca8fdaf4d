/**
 * LLM agents (issue 28): of a record's prompt tokens, those the provider served from its prompt
 * cache (OpenAI `prompt_tokens_details.cached_tokens`, Anthropic `cache_read_input_tokens`),
 * billed at their own price. Kept on the raw records and both rollups, summed like the other
 * token counts; rows from before count none.
 */
import type { Kysely } from 'kysely';

const TABLES = ['usage_records', 'usage_hourly', 'usage_daily'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const t of TABLES)
    await db.schema
      .alterTable(t)
      .addColumn('cached_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of TABLES) await db.schema.alterTable(t).dropColumn('cached_tokens').execute();
}
