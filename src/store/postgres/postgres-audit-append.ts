/**
 * Audit appends on PostgreSQL. Every replica appends to the same chain, so reading the last record
 * and inserting after it must not interleave: the transaction first takes an EXCLUSIVE lock on
 * audit_log (it conflicts with itself and with writes, but not with plain SELECTs, so the API and
 * `audit verify` keep reading). A table lock rather than an advisory lock: it is scoped to this
 * schema, so stores sharing one database in other schemas do not wait on each other.
 */
import { sql, type Kysely } from 'kysely';
import { chainRows } from '../audit-chain.js';
import type { AuditAppend } from '../audit-store.js';
import type { Database } from '../schema.js';
import type { AuditAppender, AuditDatabase, AuditLogTable } from '../sql-audit-store.js';

/** 14 columns a row, far under PG's 65535 bind parameters. */
const ROWS_PER_INSERT = 1000;

export function postgresAuditAppender(db: Kysely<Database>): AuditAppender {
  const k = db.withTables<AuditDatabase>();
  return (records: readonly AuditAppend[]) =>
    k.transaction().execute(async (trx) => {
      await sql`lock table audit_log in exclusive mode`.execute(trx);
      const last = await trx.selectFrom('audit_log').select(['seq', 'hash']).orderBy('seq', 'desc').limit(1).executeTakeFirst();
      const rows: AuditLogTable[] = chainRows(last ? { seq: Number(last.seq), hash: last.hash } : undefined, records);
      for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
        await trx
          .insertInto('audit_log')
          .values(rows.slice(i, i + ROWS_PER_INSERT))
          .execute();
      }
      return rows;
    });
}
