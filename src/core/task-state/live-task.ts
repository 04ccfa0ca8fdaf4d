/** The in-memory working copy of a task that has activity in this process. */
import type { Context } from '../../observability/tracing/index.js';
import type { Message, Task, TaskPushNotificationConfig } from '../../protocol/a2a/types.js';
import type { StoredTask, TaskEventRecord, TaskLease } from '../../store/store.js';
import type { TaskUsageState } from '../usage/task-usage.js';

export type PushTarget = TaskPushNotificationConfig & { id: string; taskId: string };

/**
 * What a working copy holds of the run executing its task (core/execution/agent-run.ts is one):
 * enough to stop it and to hand it a follow-up message. Owned here so the copy, below execution,
 * does not name the run's class.
 */
export interface TaskRun {
  /** set once the task reached a terminal state or the run was canceled: later events are dropped */
  finished: boolean;
  cancel(): void;
  /** a follow-up message for the running executor (its inbox) */
  deliver(message: Message): void;
}

export class LiveTask {
  task: Task;
  readonly agentId: string;
  readonly owner: string;
  readonly createdAt: number;
  /** last seq assigned (may be ahead of what is committed) */
  seq: number;
  /** version the next commit expects to find in the store */
  version: number;
  /** commits enqueued but not yet acknowledged */
  pending = 0;
  /** events applied to `task` but not yet handed to the committer */
  unflushed: TaskEventRecord[] = [];
  /** the commit that will carry `unflushed`, scheduled for the end of this tick */
  flush?: Promise<void>;
  /** the newest commit scheduled, to wait for before declaring a run over */
  lastCommit?: Promise<void>;
  /**
   * A store write the next commit must follow (TaskLog.flush awaits it first): the inline push
   * config of a new task, which that commit's outbox rows name. A delivery worker on any replica
   * may claim a row the moment it is committed, and drops a row whose config it cannot find (a
   * deleted config, A2A §9), so the config must be durable first.
   */
  commitAfter?: Promise<void>;
  run?: TaskRun;
  /** distributed mode: this replica holds the task's lease (it created or claimed the task) */
  held = false;
  /** a claim of the lease in flight; others wait for it instead of claiming again */
  claiming?: Promise<boolean>;
  /** at least one commit of this copy reached the store (the lease keeper renews only those) */
  committed = false;
  private targets?: Map<string, PushTarget>;
  /** its push configs (created on first use: most tasks have none, and an empty Map is ~270 bytes) */
  get pushTargets(): Map<string, PushTarget> {
    this.targets ??= new Map();
    return this.targets;
  }
  /** how many push configs it has, without creating the map */
  get pushTargetCount(): number {
    return this.targets?.size ?? 0;
  }
  /** messageId of the message that created the task, written with its first commit (idempotency key) */
  originMessageId?: string;
  /** W3C traceparent of the span that created the task (tracing on): later spans continue or link to it */
  traceParent?: string;
  /** the caller a resumable run acts for, JSON (StoredTask.caller), written with the first commit */
  caller?: string;
  /** with tracing on, the span the next commit's span hangs under (TaskLog.append) */
  commitTrace?: Context | undefined;
  /**
   * A task object held beyond the working copy, never to change: the copy the last commit took
   * (TaskLog.flush), or the task a task event carries. While it is `task` itself, the next append
   * changes a copy of it instead (workingCopyFor).
   */
  sharedTask: Task | undefined = undefined;
  /** the task as of the last commit that reached the store (what a caller may be told it is) */
  durable?: Task;
  /** the seq `durable` is at: when it is `seq`, `durable` is `task` as it stands, and the copy the store wrote */
  durableSeq = 0;
  /** its usage record: the creating call's draft, what was last written, LLM usage reported since */
  readonly usage: TaskUsageState = {};

  constructor(init: { task: Task; agentId: string; owner: string; seq: number; version: number; createdAt: number }) {
    this.task = init.task;
    this.agentId = init.agentId;
    this.owner = init.owner;
    this.seq = init.seq;
    this.version = init.version;
    this.createdAt = init.createdAt;
  }

  /** the lease as last read from the store (distributed mode) */
  lease?: TaskLease;

  static fromStored(s: StoredTask): LiveTask {
    const l = new LiveTask({ task: s.task, agentId: s.agentId, owner: s.owner, seq: s.seq, version: s.version, createdAt: s.createdAt });
    l.committed = true;
    l.durable = s.task;
    l.durableSeq = s.seq;
    if (s.lease) l.lease = s.lease;
    if (s.traceParent) l.traceParent = s.traceParent;
    if (s.caller) l.caller = s.caller;
    return l;
  }

  /** Takes the store's newer state (after a claim); only valid while nothing is pending here. */
  refresh(s: StoredTask): void {
    this.task = s.task;
    this.seq = s.seq;
    this.version = s.version;
    this.committed = true;
    this.durable = s.task;
    this.durableSeq = s.seq;
    if (s.lease) this.lease = s.lease;
  }
}
