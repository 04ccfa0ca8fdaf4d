/**
 * What the task log and the run supervisor know of distributed mode: whose lease a task's commits
 * write and renew, and for how long. Owned here, below both, so neither reaches up to the cluster
 * (core/cluster/cluster-options.ts extends it with what only the cluster uses).
 */
export interface LeaseTerms {
  /** this replica's id; written into the leases it takes */
  replicaId: string;
  /** a lease not renewed for this long is free to take (a dead replica's tasks are recovered after it) */
  leaseTtlMs: number;
}
