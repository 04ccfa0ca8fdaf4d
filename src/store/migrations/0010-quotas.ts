/**
 * Quotas set through the management API (issue 13). The definition is the JSON of one `quotas:`
 * entry; config quotas are not stored (they are read-only and come from the file).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('quotas')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('definition', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('quotas').ifExists().execute();
}
