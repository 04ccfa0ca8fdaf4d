/**
 * A real event log for the Redis bus tests: an in-memory SQLite store, with records committed the
 * way the core commits them (a task snapshot as seq 1, then status updates) before anyone
 * publishes them.
 */
import { openSqliteStore } from '../../src/store/index.js';
import type { Task } from '../../src/protocol/a2a/types.js';
import type { Store, TaskEventRecord } from '../../src/store/store.js';

export class TaskLog {
  private readonly versions = new Map<string, { task: Task; seq: number; version: number }>();
  /** how many times a bus read the log, per task */
  readonly reads = new Map<string, number>();

  private constructor(readonly store: Store) {}

  static async open(): Promise<TaskLog> {
    const store = await openSqliteStore({ file: ':memory:' });
    await store.migrate();
    return new TaskLog(store);
  }

  /** `Store.readEvents`, counting calls. */
  readonly readEvents = (taskId: string, afterSeq: number, limit: number): Promise<TaskEventRecord[]> => {
    this.reads.set(taskId, (this.reads.get(taskId) ?? 0) + 1);
    return this.store.readEvents(taskId, afterSeq, limit);
  };

  readCount(taskId: string): number {
    return this.reads.get(taskId) ?? 0;
  }

  /** Commits a new task; returns its seq-1 record. */
  async create(taskId: string): Promise<TaskEventRecord> {
    const task: Task = { id: taskId, contextId: `ctx-${taskId}`, status: { state: 'TASK_STATE_SUBMITTED', timestamp: new Date(0).toISOString() } };
    const record: TaskEventRecord = { taskId, seq: 1, event: { task }, createdAt: 1 };
    await this.store.commit([{ agentId: 'agent', owner: 'alice', task, expectedVersion: 0, seq: 1, events: [record], outbox: [], createdAt: 1 }]);
    this.versions.set(taskId, { task, seq: 1, version: 1 });
    return record;
  }

  /** Commits `n` status updates in one transaction; returns their records. */
  async append(taskId: string, n = 1): Promise<TaskEventRecord[]> {
    const prev = this.versions.get(taskId);
    if (!prev) throw new Error(`create ${taskId} first`);
    const status = { state: 'TASK_STATE_WORKING' as const, timestamp: new Date(prev.seq + n).toISOString() };
    const task: Task = { ...prev.task, status };
    const events: TaskEventRecord[] = Array.from({ length: n }, (_, i) => ({
      taskId,
      seq: prev.seq + i + 1,
      event: { statusUpdate: { taskId, contextId: task.contextId, status } },
      createdAt: prev.seq + i + 1,
    }));
    const seq = prev.seq + n;
    await this.store.commit([{ agentId: 'agent', owner: 'alice', task, expectedVersion: prev.version, seq, events, outbox: [], createdAt: 1 }]);
    this.versions.set(taskId, { task, seq, version: prev.version + 1 });
    return events;
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
