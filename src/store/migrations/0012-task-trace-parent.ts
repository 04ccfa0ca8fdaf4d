/**
 * Tracing (issue 14): the W3C `traceparent` of the span a task was created in, so what happens to
 * the task later — a stream served by another replica, a forwarded follow-up, a push delivery
 * minutes later — continues or links to that trace. Written on a task's insert only; null for
 * tasks created with tracing off and for rows older than this migration.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('trace_parent', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').dropColumn('trace_parent').execute();
}
