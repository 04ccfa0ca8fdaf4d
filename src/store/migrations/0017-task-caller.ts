/**
 * LLM agents (issue 28): the caller a task's run acts for when it calls other hosted agents — its
 * subject, scopes, usecase and surface, as JSON — so a run resumed after a restart or on another
 * replica calls them with the same rights, never more. Written on a task's insert only, and only
 * for agents that call other agents as their caller and can resume; null otherwise.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('caller', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').dropColumn('caller').execute();
}
