/**
 * The hash chain of the audit log. Each record's hash is
 *
 *   hex(SHA-256("agentport-audit-v1\n" + JSON.stringify([seq, time, replica, action, outcome, actor,
 *       actor_client, target, client_address, user_agent, request_id, details, prev_hash])))
 *
 * with an absent optional column as JSON null and `details` as the stored JSON text (itself written
 * with sorted keys), so the hash is computed from exactly what is in the row and anyone can
 * recompute it with a SHA-256 and a JSON encoder. The first record's prev_hash is GENESIS_HASH;
 * every other record's is the hash of the record before it. Editing a row breaks its own hash;
 * deleting one leaves a gap in seq and a prev_hash that no longer matches. Rewriting the whole
 * tail after an edit is not detectable from the table alone: that is what the webhook copy is for.
 */
import { createHash } from 'node:crypto';
import type { AuditAppend, AuditRecord, AuditVerification } from './audit-store.js';

export const GENESIS_HASH = '0'.repeat(64);

/** The columns that are hashed, as they are stored. */
export interface AuditChainRow {
  seq: number;
  time: number;
  replica: string;
  action: string;
  outcome: string;
  actor: string;
  actor_client: string | null;
  target: string | null;
  client_address: string | null;
  user_agent: string | null;
  request_id: string | null;
  details: string | null;
  prev_hash: string;
}

export function auditHash(r: AuditChainRow): string {
  const fields = [r.seq, r.time, r.replica, r.action, r.outcome, r.actor, r.actor_client, r.target, r.client_address, r.user_agent, r.request_id, r.details, r.prev_hash];
  return createHash('sha256')
    .update(`agentport-audit-v1\n${JSON.stringify(fields)}`)
    .digest('hex');
}

/** JSON with object keys sorted at every level, so equal details always give the same text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}

/** The chain's running state, fed rows in seq order, page after page. */
export class AuditChainWalk {
  private expectedSeq = 1;
  private prevHash = GENESIS_HASH;
  private count = 0;
  private failure: Extract<AuditVerification, { ok: false }> | undefined;

  /** Checks one row; false once the chain is broken (the failure is kept, later rows are ignored). */
  check(row: AuditChainRow & { hash: string }): boolean {
    if (this.failure) return false;
    if (row.seq !== this.expectedSeq) {
      // A lower seq cannot come from an ordered read; a higher one means rows were removed.
      this.failure = {
        ok: false,
        count: this.count,
        seq: this.expectedSeq,
        problem: 'missing-row',
        detail: row.seq > this.expectedSeq ? `seq ${this.expectedSeq}${row.seq - 1 > this.expectedSeq ? `..${row.seq - 1}` : ''} missing (next present row is ${row.seq})` : `seq ${row.seq} out of order`,
      };
      return false;
    }
    if (row.prev_hash !== this.prevHash) {
      this.failure = { ok: false, count: this.count, seq: row.seq, problem: 'prev-hash-mismatch', detail: `prev_hash does not match the hash of seq ${row.seq - 1}` };
      return false;
    }
    if (auditHash(row) !== row.hash) {
      this.failure = { ok: false, count: this.count, seq: row.seq, problem: 'hash-mismatch', detail: 'the stored hash does not match the row (the row was edited)' };
      return false;
    }
    this.expectedSeq = row.seq + 1;
    this.prevHash = row.hash;
    this.count++;
    return true;
  }

  result(): AuditVerification {
    return this.failure ?? { ok: true, count: this.count, lastSeq: this.expectedSeq - 1, lastHash: this.prevHash };
  }
}

/** A stored row as a record (details parsed; a corrupt details text is kept as `{ raw }`). */
export function toAuditRecord(row: AuditChainRow & { hash: string }): AuditRecord {
  return {
    seq: row.seq,
    time: row.time,
    replica: row.replica,
    action: row.action,
    outcome: row.outcome as AuditRecord['outcome'],
    actor: row.actor,
    ...(row.actor_client !== null ? { actorClient: row.actor_client } : {}),
    ...(row.target !== null ? { target: row.target } : {}),
    ...(row.client_address !== null ? { clientAddress: row.client_address } : {}),
    ...(row.user_agent !== null ? { userAgent: row.user_agent } : {}),
    ...(row.request_id !== null ? { requestId: row.request_id } : {}),
    ...(row.details !== null ? { details: parseDetails(row.details) } : {}),
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}

function parseDetails(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };
  } catch {
    return { raw: text };
  }
}

/** Chains `appends` after the last stored record (undefined: the log is empty). */
export function chainRows(last: { seq: number; hash: string } | undefined, appends: readonly AuditAppend[]): Array<AuditChainRow & { hash: string }> {
  let seq = last ? last.seq : 0;
  let prev = last ? last.hash : GENESIS_HASH;
  return appends.map((a) => {
    seq++;
    const row: AuditChainRow = {
      seq,
      time: a.time,
      replica: a.replica,
      action: a.action,
      outcome: a.outcome,
      actor: a.actor,
      actor_client: a.actorClient ?? null,
      target: a.target ?? null,
      client_address: a.clientAddress ?? null,
      user_agent: a.userAgent ?? null,
      request_id: a.requestId ?? null,
      details: a.details !== undefined ? canonicalJson(a.details) : null,
      prev_hash: prev,
    };
    const hash = auditHash(row);
    prev = hash;
    return { ...row, hash };
  });
}
