/**
 * The push outbox hands out the oldest pending row of each task's push config, not of each task
 * (issue 25 P1: one webhook that is down held back the task's other configs for minutes). The
 * claim's head check now looks up (task_id, config_id, id): this index answers it directly, however
 * many rows a dead webhook has piled up, and its task_id prefix still serves the per-task reads and
 * deletes the old (task_id, id) index served, which goes (one index per outbox row written, not two).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('push_outbox_config_idx').on('push_outbox').columns(['task_id', 'config_id', 'id']).execute();
  await db.schema.dropIndex('push_outbox_task_idx').ifExists().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('push_outbox_task_idx').ifNotExists().on('push_outbox').columns(['task_id', 'id']).execute();
  await db.schema.dropIndex('push_outbox_config_idx').ifExists().execute();
}
