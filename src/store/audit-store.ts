/**
 * The audit log in the database (issue 13, migration 0009_audit): appended in batches, each
 * record hash-chained to the one before (src/store/audit-chain.ts), never updated or deleted by
 * Agentport. The store knows records, not producers: src/core/audit/ turns AuditEvents into them.
 */

export type AuditRecordOutcome = 'success' | 'failure' | 'denied';

/** What an appender supplies; seq, prev_hash and hash are assigned inside the append transaction. */
export interface AuditAppend {
  /** epoch ms */
  time: number;
  /** the replica that recorded it (its lease owner id) */
  replica: string;
  action: string;
  outcome: AuditRecordOutcome;
  actor: string;
  actorClient?: string;
  target?: string;
  clientAddress?: string;
  userAgent?: string;
  requestId?: string;
  details?: Record<string, unknown>;
}

export interface AuditRecord extends AuditAppend {
  seq: number;
  prevHash: string;
  hash: string;
}

export interface AuditQuery {
  action?: string;
  actor?: string;
  target?: string;
  outcome?: AuditRecordOutcome;
  /** epoch ms, inclusive */
  since?: number;
  /** epoch ms, exclusive */
  until?: number;
  /** only records with a larger seq (the next page) */
  afterSeq?: number;
  limit: number;
}

export type AuditVerification =
  | { ok: true; count: number; lastSeq: number; lastHash: string }
  | {
      ok: false;
      /** rows checked and found sound before the break */
      count: number;
      /** the first seq whose record or link is wrong (for a deleted row: the missing seq) */
      seq: number;
      problem: 'hash-mismatch' | 'missing-row' | 'prev-hash-mismatch';
      detail: string;
    };

export interface AuditStore {
  /**
   * Appends the records in order, in one transaction, after the last record of any replica (the
   * chain is linear: appenders are serialized by a lock). Returns them as stored.
   */
  append(records: readonly AuditAppend[]): Promise<AuditRecord[]>;
  /** Records matching the query, in seq order. */
  list(q: AuditQuery): Promise<AuditRecord[]>;
  /** Walks the whole chain in pages of `pageSize` and reports the first break. */
  verify(pageSize?: number): Promise<AuditVerification>;
}
