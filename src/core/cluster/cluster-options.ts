import type { LeaseTerms } from '../task-state/lease-terms.js';

/** Distributed mode: several replicas over one PostgreSQL store (and, for live streams, Redis). */
export interface ClusterOptions extends LeaseTerms {
  /** how often this replica looks for tasks whose lease expired */
  sweepIntervalMs: number;
  /** how long commits are retried while the database is unreachable (the committer's window) */
  commitRetryMs?: number;
}
