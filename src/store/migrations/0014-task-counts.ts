/**
 * How many tasks each agent + owner has, for ListTasks' `totalSize` on PostgreSQL (issue 18,
 * target 5): counting them was a parallel index-only scan of every matching entry, 89–180 ms per
 * first page at a million tasks (bench/large-store.js). The commit statement adds each batch's new
 * tasks to one row here in the same statement that inserts them (postgres-commit.ts), and
 * ListTasks reads the sum of an owner's rows. An owner has several rows (`shard`): each batch
 * adds to one of them, chosen round-robin per replica, so batches in flight at once, from one
 * replica or several, rarely wait on each other's row lock. How many shards there are is the
 * committer's choice, not the schema's: the read sums whatever rows exist.
 *
 * Tasks are never deleted and never change agent or owner, so an insert is the only thing that
 * moves a count. Existing tasks are counted here, with writers held off (SHARE lock on `tasks`)
 * until the migration commits, so no insert lands between the count and the table. A replica of
 * an older build still writing after this migration would insert tasks it does not count: apply
 * it while no older replica writes, or run the same backfill again afterwards (docs/deploy.md).
 *
 * SQLite gets no such table: the embedded store is the database's only writer and keeps the
 * figure in memory (sqlite-store.ts knownTaskCount), so a table would only be one more row
 * written per commit on the hot path, and one nobody maintained would be wrong.
 */
import { sql, type Kysely } from 'kysely';
import type { SqlDialectName } from './sql-dialect.js';

export async function up(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  await db.schema
    .createTable('task_counts')
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('shard', 'integer', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('task_counts_pk', ['agent_id', 'owner', 'shard'])
    .execute();
  await backfillTaskCounts(db);
}

/**
 * Counts every stored task into shard 0, replacing what the table held. Inside a transaction it
 * blocks task inserts until that transaction ends (PostgreSQL runs all pending migrations in one).
 */
export async function backfillTaskCounts(db: Kysely<unknown>): Promise<void> {
  await sql`lock table tasks in share mode`.execute(db);
  await sql`delete from task_counts`.execute(db);
  await sql`insert into task_counts (agent_id, owner, shard, n) select agent_id, owner, 0, count(*) from tasks group by agent_id, owner`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('task_counts').ifExists().execute();
}
