/**
 * SendMessage idempotency (issue 19 C1): the messageId of the message that created a task, unique
 * per agent and owner, so a client retrying a request whose answer it never got (a dropped
 * connection, a 503 after the task was stored) finds the task instead of starting the work again.
 * The key lives as long as the task row; tasks are never deleted, so that is the retention window.
 * Rows written before this migration have none. (Named 0007: 0006 is reserved for sessions.)
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('origin_message_id', 'text').execute();
  // Both dialects treat NULLs as distinct in a unique index, so older rows never collide. The index
  // is written on a task's insert only: no commit after the first changes the column.
  await db.schema.createIndex('tasks_origin_message_idx').unique().on('tasks').columns(['agent_id', 'owner', 'origin_message_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('tasks_origin_message_idx').ifExists().execute();
  await db.schema.alterTable('tasks').dropColumn('origin_message_id').execute();
}
