/**
 * The task commit's transaction body, shared by the store's own connection and the commit thread
 * (commit-thread.ts, ADR 0062): the same statements, bound the same way, on either connection.
 */
import type Sqlite from 'better-sqlite3';
import { refersToTaskRow, type PreparedCommit } from '../rows.js';
import { ConcurrentUpdateError } from '../store.js';
import { commitTiming, taskUsageValues } from '../usage/task-usage-columns.js';

/** The statements a commit runs, by name (their SQL is compileStatements' in sqlite-store.ts). */
export const COMMIT_STATEMENTS = ['insertTask', 'insertTaskWithUsage', 'updateTask', 'updateTaskWithLease', 'updateTaskUsage', 'upsertTiming', 'insertEvent', 'insertOutbox'] as const;

export type CommitStatements = { [K in (typeof COMMIT_STATEMENTS)[number]]: Sqlite.Statement };

/**
 * Writes the batch's commits in order; the caller runs it inside one transaction. A version or
 * unique conflict throws ConcurrentUpdateError (rolling the whole batch back).
 */
export function writeBatch(s: CommitStatements, batch: readonly PreparedCommit[]): void {
  for (const p of batch) {
    const lease = p.lease;
    const usage = p.usage;
    const ev = p.eventsRow;
    // A terminal commit's events row (ADR 0050's form) goes into the task row: one B-tree insert less (ADR 0057).
    const finalEvents = ev !== undefined && refersToTaskRow(ev.json) ? ev.json : null;
    if (p.expectedVersion === 0) {
      const task = [
        p.taskId,
        p.agentId,
        p.owner,
        p.contextId,
        p.state,
        p.statusTime,
        p.createdAt,
        p.seq,
        1,
        p.taskJson,
        lease ? lease.owner : null,
        lease ? lease.expiresAt : null,
        p.originMessageId,
        p.traceParent,
        p.caller,
        finalEvents,
      ];
      const r = usage ? s.insertTaskWithUsage.run(...task, ...taskUsageValues(usage, p.owner)) : s.insertTask.run(...task);
      if (r.changes === 0) throw new ConcurrentUpdateError(p.taskId);
    } else {
      const r = lease
        ? s.updateTaskWithLease.run(p.contextId, p.state, p.statusTime, p.seq, p.expectedVersion + 1, p.taskJson, finalEvents, lease.owner, lease.expiresAt, p.taskId, p.agentId, p.expectedVersion)
        : s.updateTask.run(p.contextId, p.state, p.statusTime, p.seq, p.expectedVersion + 1, p.taskJson, finalEvents, p.taskId, p.agentId, p.expectedVersion);
      if (r.changes === 0) throw new ConcurrentUpdateError(p.taskId);
      if (usage) s.updateTaskUsage.run(...taskUsageValues(usage, p.owner), p.taskId);
    }
    const timing = usage && commitTiming(usage);
    if (timing) s.upsertTiming.run(p.taskId, timing.ttfbMs ?? null, timing.latencyMs ?? null, null, timing.bytesOut ?? null);
    if (ev && finalEvents === null) s.insertEvent.run(p.taskId, ev.lastSeq, ev.firstSeq, ev.json, ev.createdAt);
    for (const o of p.outbox) s.insertOutbox.run(p.taskId, o.configId, o.seq, o.json, p.createdAt, p.createdAt);
  }
}
