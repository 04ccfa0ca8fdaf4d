/**
 * The audit log (issue 13): one row per security or administration event, append-only and
 * hash-chained (src/store/audit-chain.ts). `seq` is assigned by the appender under a lock, one
 * more than the last row, so a deleted row shows as a gap; `time` is epoch ms; `details` is the
 * JSON text exactly as hashed. No foreign keys: a record outlives the user, key or client it names.
 */
import type { Kysely } from 'kysely';
import type { SqlDialectName } from './sql-dialect.js';

export async function up(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  await db.schema
    .createTable('audit_log')
    .addColumn('seq', dialect === 'postgres' ? 'bigint' : 'integer', (c) => c.primaryKey())
    .addColumn('time', 'bigint', (c) => c.notNull())
    .addColumn('replica', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('actor_client', 'text')
    .addColumn('target', 'text')
    .addColumn('client_address', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('request_id', 'text')
    .addColumn('details', 'text')
    .addColumn('prev_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .execute();
  // The API filters by these and pages by seq; time answers since/until.
  await db.schema.createIndex('audit_log_time_idx').on('audit_log').column('time').execute();
  await db.schema.createIndex('audit_log_action_idx').on('audit_log').columns(['action', 'seq']).execute();
  await db.schema.createIndex('audit_log_actor_idx').on('audit_log').columns(['actor', 'seq']).execute();
  await db.schema.createIndex('audit_log_target_idx').on('audit_log').columns(['target', 'seq']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_log').ifExists().execute();
}
