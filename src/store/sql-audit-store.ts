/**
 * The audit log over Kysely: reads and the chain walk are shared; the append, the one place the
 * dialects differ (how appenders are serialized), is supplied by each store.
 */
import type { Kysely } from 'kysely';
import { AuditChainWalk, toAuditRecord, type AuditChainRow } from './audit-chain.js';
import type { Database } from './schema.js';
import type { AuditAppend, AuditQuery, AuditRecord, AuditStore, AuditVerification } from './audit-store.js';

export interface AuditLogTable extends AuditChainRow {
  hash: string;
}

/** audit_log is typed here rather than in Database, so only the audit store can reach it. */
export type AuditDatabase = { audit_log: AuditLogTable };

/** Chains and inserts a batch after the last stored record, serialized against every other appender. */
export type AuditAppender = (records: readonly AuditAppend[]) => Promise<AuditLogTable[]>;

const DEFAULT_VERIFY_PAGE = 1000;

export class SqlAuditStore implements AuditStore {
  private readonly db: Kysely<Database & AuditDatabase>;

  constructor(
    db: Kysely<Database>,
    private readonly appender: AuditAppender,
  ) {
    this.db = db.withTables<AuditDatabase>();
  }

  async append(records: readonly AuditAppend[]): Promise<AuditRecord[]> {
    if (records.length === 0) return [];
    return (await this.appender(records)).map(toAuditRecord);
  }

  async list(q: AuditQuery): Promise<AuditRecord[]> {
    let s = this.db.selectFrom('audit_log').selectAll();
    if (q.action !== undefined) s = s.where('action', '=', q.action);
    if (q.actor !== undefined) s = s.where('actor', '=', q.actor);
    if (q.target !== undefined) s = s.where('target', '=', q.target);
    if (q.outcome !== undefined) s = s.where('outcome', '=', q.outcome);
    if (q.since !== undefined) s = s.where('time', '>=', q.since);
    if (q.until !== undefined) s = s.where('time', '<', q.until);
    if (q.afterSeq !== undefined) s = s.where('seq', '>', q.afterSeq);
    const rows = await s
      .orderBy('seq')
      .limit(Math.max(0, Math.floor(q.limit)))
      .execute();
    return rows.map((r) => toAuditRecord(normalize(r)));
  }

  async verify(pageSize = DEFAULT_VERIFY_PAGE): Promise<AuditVerification> {
    const walk = new AuditChainWalk();
    let after = 0;
    for (;;) {
      const rows = await this.db
        .selectFrom('audit_log')
        .selectAll()
        .where('seq', '>', after)
        .orderBy('seq')
        .limit(Math.max(1, Math.floor(pageSize)))
        .execute();
      for (const r of rows) if (!walk.check(normalize(r))) return walk.result();
      if (rows.length < pageSize) return walk.result();
      after = Number(rows[rows.length - 1]!.seq);
    }
  }
}

/** Numbers as numbers whatever the driver returned (pg's int8 parser is per pool, SQLite may give bigint). */
function normalize(r: AuditLogTable): AuditLogTable {
  return { ...r, seq: Number(r.seq), time: Number(r.time) };
}
