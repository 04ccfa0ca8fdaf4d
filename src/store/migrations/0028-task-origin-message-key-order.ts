/**
 * The message-id index leads with the message id (issue 26, PostgreSQL one replica): the unique
 * index of 0007 on (agent_id, owner, origin_message_id) becomes one on (origin_message_id,
 * agent_id, owner), under the same name. The same three columns, so the same uniqueness (what
 * makes a retried SendMessage find its task on every replica) and the same lookup by all three.
 *
 * Why: every new task with a message id adds an entry, at a random place (clients choose message
 * ids). With agent and owner first, which nearly every entry shares, each comparison on the way
 * down the tree compared two equal texts before the one that differs, and no internal page's keys
 * could be cut short to the first column. Counted with callgrind on a PostgreSQL 15 backend
 * (single-user mode, 300 inserts of 12 echo task rows into a 36,000-row copy of `tasks`): 192 k
 * instructions a row with the old index, 178 k with this one; the old index alone was 31 k of
 * them. The reordered index also serves the lost-commit check's `origin_message_id = any(…)`
 * (postgres-commit.ts whoLost), which no index could before.
 *
 * SQLite keeps 0007's index: its message-id filter reads it in key order (ADR 0063), and its
 * insert cost was not measured here.
 */
import { sql, type Kysely } from 'kysely';
import type { SqlDialectName } from './sql-dialect.js';

export async function up(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`create unique index tasks_origin_message_first_idx on tasks (origin_message_id, agent_id, owner)`.execute(db);
  await sql`drop index tasks_origin_message_idx`.execute(db);
  await sql`alter index tasks_origin_message_first_idx rename to tasks_origin_message_idx`.execute(db);
}

export async function down(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`create unique index tasks_origin_message_owner_first_idx on tasks (agent_id, owner, origin_message_id)`.execute(db);
  await sql`drop index tasks_origin_message_idx`.execute(db);
  await sql`alter index tasks_origin_message_owner_first_idx rename to tasks_origin_message_idx`.execute(db);
}
