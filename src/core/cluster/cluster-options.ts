/** Distributed mode: several replicas over one PostgreSQL store (and, for live streams, Redis). */
export interface ClusterOptions {
  /** this replica's id; written into the leases it takes */
  replicaId: string;
  /** a lease not renewed for this long is free to take (a dead replica's tasks are recovered after it) */
  leaseTtlMs: number;
  /** how often this replica looks for tasks whose lease expired */
  sweepIntervalMs: number;
  /** how long commits are retried while the database is unreachable (the committer's window) */
  commitRetryMs?: number;
}
