/**
 * Less PostgreSQL work for each new task (issue 26, PostgreSQL one replica). SQLite: nothing.
 *
 * 1. The message-id index leads with the message id: 0007's unique index on (agent_id, owner,
 *    origin_message_id) becomes one on (origin_message_id, agent_id, owner), under the same name.
 *    The same three columns, so the same uniqueness (what makes a retried SendMessage find its
 *    task on every replica) and the same lookup by all three. Every new task with a message id
 *    adds an entry at a random place (clients choose message ids); with agent and owner first,
 *    which nearly every entry shares, each comparison on the way down compared two equal texts
 *    before the one that differs, and no internal key could be cut short to one column. Counted
 *    with callgrind on a PostgreSQL 15 backend (single-user, 300 inserts of 12 echo task rows
 *    into a 36,000-row copy of `tasks`): 192 k instructions a row with the old index, 178 k with
 *    this one. It also serves the lost-commit check's `origin_message_id = any(…)` (whoLost).
 *    SQLite keeps 0007's index: its message-id filter reads it in key order (ADR 0063).
 *
 * 2. `task_commit_new_row`, the composite type the commit statement reads its new tasks as
 *    (record-rows.ts: decoding them as JSON was ~half a new row's cost in the backend). Its
 *    attributes are the commit's fields of a new task, in this order; the commit writes them in
 *    the same order (test/store/task-inserts-migration.test.ts compares the two). A later
 *    migration adding a usage column adds it here too (`alter type … add attribute`).
 */
import { sql, type Kysely } from 'kysely';
import type { SqlDialectName } from './sql-dialect.js';

export async function up(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`create unique index tasks_origin_message_first_idx on tasks (origin_message_id, agent_id, owner)`.execute(db);
  await sql`drop index tasks_origin_message_idx`.execute(db);
  await sql`alter index tasks_origin_message_first_idx rename to tasks_origin_message_idx`.execute(db);
  await sql`
    create type task_commit_new_row as (
      id text, agent_id text, owner text, context_id text, state text, status_time bigint, created_at bigint, seq integer,
      task_at integer, task_len integer, final_at integer, final_len integer, lease_owner text, lease_expires_at bigint,
      origin_message_id text, trace_parent text, caller text,
      usage_time bigint, usage_final integer, usage_started_at bigint, usage_replica text, usage_face text, usage_operation text,
      usage_skill text, usage_tool text, usage_subject text, usage_client_id text, usage_key_id text, usage_usecase text,
      usage_remote_subject text, usage_remote_issuer text, usage_duration_ms double precision, usage_bytes_in bigint,
      usage_model text, usage_prompt_tokens bigint, usage_completion_tokens bigint, usage_cached_tokens bigint, usage_cost numeric)`.execute(db);
}

export async function down(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`drop type task_commit_new_row`.execute(db);
  await sql`create unique index tasks_origin_message_owner_first_idx on tasks (agent_id, owner, origin_message_id)`.execute(db);
  await sql`drop index tasks_origin_message_idx`.execute(db);
  await sql`alter index tasks_origin_message_owner_first_idx rename to tasks_origin_message_idx`.execute(db);
}
