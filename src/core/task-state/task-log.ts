/**
 * The task log: every state change is an event appended to its task's log in the same commit as
 * the projection and the push outbox; once durable, the events are published on the bus.
 */
import { endFailed, startSpan, type Context, type Span } from '../../observability/tracing/index.js';
import type { EventBus } from '../../bus/event-bus.js';
import type { GroupCommitter } from '../../store/group-commit.js';
import type { NewOutboxEntry, TaskCommit, TaskEventPayload, TaskEventRecord } from '../../store/store.js';
import type { LeaseTerms } from './lease-terms.js';
import type { LiveTask } from './live-task.js';
import type { LiveTasks } from './live-tasks.js';
import { isStreamEvent } from './stream-events.js';
import { applyEvent, isInCommitOrder, structuredCloneTask, workingCopyFor } from './task-projection.js';
import { taskUsageRow, type TaskUsagePolicy } from '../usage/task-usage.js';
import { isTerminal } from '../../protocol/a2a/types.js';
import type { Metrics } from '../../observability/metrics/index.js';

export interface TaskLogDeps {
  /** tasks with activity in this process */
  live: LiveTasks;
  committer: GroupCommitter;
  bus: Pick<EventBus, 'publish'>;
  cluster?: LeaseTerms;
  /** called after a commit that queued push deliveries */
  onOutbox?: () => void;
  /** usage records on: each task's record is written in its commits (src/core/usage/task-usage.ts) */
  usage?: TaskUsagePolicy;
  /** metrics on: tasks started and finished are counted as their commits land */
  metrics?: Metrics;
}

const SETTLED = Promise.resolve();
const NO_OUTBOX = Object.freeze([]) as unknown as NewOutboxEntry[];
function noop(): void {}

export class TaskLog {
  /**
   * Working copies whose commit is scheduled, in the order scheduled. Every schedule is the same two
   * turns from a settled promise, so they come due in that order too: one function takes the next,
   * where each commit made a closure and its scope to name its copy.
   */
  private readonly scheduled: LiveTask[] = [];
  private readonly flushNext = (): Promise<void> => this.flush(this.scheduled.shift()!);

  constructor(private readonly d: TaskLogDeps) {}

  /**
   * Assigns seqs and applies events to the live projection at once; the durable commit and the
   * publish follow. Events appended in the same tick (an executor's synchronous artifact + complete)
   * share one commit, so the task row is written once for them.
   */
  append(live: LiveTask, payloads: TaskEventPayload[], trace?: Context): Promise<void> {
    const now = Date.now();
    for (const event of payloads) {
      if ('task' in event) {
        // The event's task is the working copy until something changes it (then it is copied, as
        // applyEvent would have copied it here): a new task's first append changes it at once
        // (its first artifact), and that copy has the artifact's place, so nothing is copied twice.
        live.task = event.task;
        live.sharedTask = event.task;
      } else {
        live.task = applyEvent(workingCopyFor(live.task, event, live.task === live.sharedTask), event);
      }
      const record: TaskEventRecord = { taskId: live.task.id, seq: ++live.seq, event, createdAt: now };
      // A commit's first two records (nearly every commit has one or two) in lists of their length:
      // pushed into the empty list, they took a backing store of 17 slots, kept by the commit
      // until the store answers (issue 26, docs/benchmarks.md alloc33).
      const records = live.unflushed;
      if (records.length === 0) live.unflushed = [record];
      else if (records.length === 1) live.unflushed = [records[0]!, record];
      else records.push(record);
    }
    // The commit's span hangs under the first appender's span (with tracing on).
    if (trace) live.commitTrace ??= trace;
    if (!live.flush) {
      live.pending++;
      // Two microtask turns, as `new Promise((r) => queueMicrotask(r)).then(…)` took, without Node's
      // queueMicrotask (an AsyncResource made, entered and destroyed per commit, ~1.5 k instructions).
      this.scheduled.push(live);
      live.flush = SETTLED.then(noop).then(this.flushNext);
      live.lastCommit = live.flush;
    }
    // Every append of this tick settles with the one commit that carries it: its caller waits on
    // that commit itself, not on a promise and a list of records made per append (no caller read them).
    return live.flush;
  }

  /**
   * The task's commit of what was appended since the last. Not an async function: its frame (every
   * register, saved at the await) lived as long as the store's write, a request's bytes for
   * nothing; what the answer needs is the commit itself (issue 26, docs/benchmarks.md alloc23).
   */
  private flush(live: LiveTask): Promise<void> {
    // Awaited before the batch is taken: appends meanwhile join this commit, none starts another.
    if (live.commitAfter) return this.flushAfterWrite(live);
    return this.commitNow(live);
  }

  private async flushAfterWrite(live: LiveTask): Promise<void> {
    await this.awaitCommitAfter(live);
    await this.commitNow(live);
  }

  private commitNow(live: LiveTask): Promise<void> {
    const records = live.unflushed;
    live.unflushed = [];
    live.flush = undefined;
    const trace = live.commitTrace;
    live.commitTrace = undefined;
    // Without push configs (nearly every task) the commit's outbox is one shared empty list, not a
    // new one a commit (the store only reads it).
    let outbox: NewOutboxEntry[] = NO_OUTBOX;
    if (live.pushTargetCount) {
      outbox = [];
      for (const rec of records) {
        if (!isStreamEvent(rec.event)) continue;
        for (const t of live.pushTargets.values()) outbox.push({ taskId: live.task.id, configId: t.id, seq: rec.seq, payload: rec.event });
      }
    }
    const expectedVersion = live.version++;
    const cluster = this.d.cluster;
    // The working copy itself when a copy would write the same text (its fields in the commit's
    // order): it is then the committed copy, and the next append copies it before changing it
    // (workingCopyFor). A blocking echo's one commit made a whole copy of its task for nothing.
    const task = isInCommitOrder(live.task) ? live.task : structuredCloneTask(live.task);
    live.sharedTask = task;
    // The working copy itself is the row's task, agent, owner and creation time (its task has this
    // commit's state, id and context), not a literal of them a commit.
    const usage = this.d.usage ? taskUsageRow(live.usage, live, expectedVersion === 0, Date.now(), this.d.usage) : undefined;
    let written: Promise<void>;
    let commit: TaskCommit;
    let span: Span | undefined;
    try {
      commit = {
        agentId: live.agentId,
        owner: live.owner,
        task,
        expectedVersion,
        seq: records[records.length - 1]!.seq,
        events: records,
        outbox,
        createdAt: live.createdAt,
      };
      // Optional fields set one by one: each conditional spread was a CopyDataProperties call (~150
      // instructions, five per commit).
      // Every commit by the replica holding the task extends its lease for free.
      if (cluster) commit.lease = { owner: cluster.replicaId, expiresAt: Date.now() + cluster.leaseTtlMs };
      if (expectedVersion === 0) {
        if (live.originMessageId !== undefined) commit.originMessageId = live.originMessageId;
        if (live.traceParent !== undefined) commit.traceParent = live.traceParent;
        if (live.caller !== undefined) commit.caller = live.caller;
      }
      if (usage) commit.usage = usage;
      const c = commit;
      // A commit no traced call caused (recovery, shutdown) gets no span of its own. The span ends
      // in the commit's own reactions below, not in a promise of its own (docs/benchmarks.md, *trace32*).
      if (trace) span = startSpan('store.commit', { parent: trace, attributes: { 'agentport.task.id': live.task.id, 'agentport.commit.events': records.length } });
      written = this.d.committer.commit(c);
    } catch (e) {
      if (span) endFailed(span, e);
      return Promise.reject(this.notCommitted(live, e));
    }
    const c = commit;
    const s = span;
    return written.then(
      () => {
        s?.end();
        this.committed(live, c);
      },
      (e: unknown) => {
        if (s) endFailed(s, e);
        throw this.notCommitted(live, e);
      },
    );
  }

  /** After the store's COMMIT: the task is durable as committed, its events are published. */
  private committed(live: LiveTask, commit: TaskCommit): void {
    const first = commit.expectedVersion === 0;
    try {
      // The creating call's record is this task's row from now on (the edge only adds its timing).
      if (first && commit.usage && live.usage.draft) live.usage.draft.createdTask = true;
      live.committed = true;
      if (this.d.metrics) this.countTask(live, commit.task, first);
      live.durable = commit.task;
      live.durableSeq = commit.seq;
    } catch (e) {
      throw this.notCommitted(live, e);
    }
    live.pending--;
    this.d.bus.publish(commit.events);
    if (commit.outbox.length) this.d.onOutbox?.();
    this.d.live.evict(live);
  }

  /** The commit failed (or what follows it threw): `e`, the working copy dropped. */
  private notCommitted(live: LiveTask, e: unknown): unknown {
    // The live copy no longer matches the store: drop it so the next access reloads the truth.
    this.d.live.drop(live);
    live.pending--;
    return e;
  }

  /** The write this commit must follow; when it failed, so does the commit (nothing of it is stored). */
  private async awaitCommitAfter(live: LiveTask): Promise<void> {
    const before = live.commitAfter!;
    live.commitAfter = undefined;
    try {
      await before;
    } catch (e) {
      live.unflushed = [];
      live.flush = undefined;
      live.pending--;
      this.d.live.drop(live);
      throw e;
    }
  }

  /** A task's first commit, and the commit that brought it to a terminal state (before `durable` moves on). */
  private countTask(live: LiveTask, task: LiveTask['task'], first: boolean): void {
    const skill = live.usage.draft?.skill ?? live.usage.skill;
    if (first) this.d.metrics!.taskStarted(live.agentId, skill);
    const state = task.status.state;
    if (isTerminal(state) && !(live.durable && isTerminal(live.durable.status.state))) this.d.metrics!.taskFinished(live.agentId, skill, state);
  }
}
