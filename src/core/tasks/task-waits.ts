/**
 * The waits on a task's committed events: a blocking SendMessage's answer, the stream of a
 * SendStreamingMessage, and SubscribeToTask's stream with its lossless resume from the log.
 */
import { A2AError } from '../../protocol/a2a/errors.js';
import { isInterrupted, isTerminal, type Message, type SendMessageResponse, type Task } from '../../protocol/a2a/types.js';
import type { EventBus } from '../../bus/event-bus.js';
import type { Store, TaskEventRecord } from '../../store/store.js';
import type { CallContext } from '../a2a-handler.js';
import type { ClusterOptions } from '../cluster/cluster-options.js';
import { NO_OBSERVER, type RunObserver } from '../execution/run-observer.js';
import type { LiveTasks } from '../task-state/live-tasks.js';
import type { PreparedSend } from './prepared-send.js';
import type { OpenStreams } from './open-streams.js';
import { stateOf } from '../task-state/stream-events.js';
import { TaskStream } from './task-stream.js';
import type { TaskDirectory } from '../task-state/task-directory.js';
import { viewTask } from '../task-state/task-projection.js';

export interface TaskWaitsDeps {
  /** tasks with activity in this process */
  live: LiveTasks;
  store: Store;
  bus: EventBus;
  dir: TaskDirectory;
  streams: OpenStreams;
  limits: { blockingSendTimeoutMs: number; maxHistoryLength: number };
  cluster?: ClusterOptions;
}

export class TaskWaits {
  private readonly deadlines: BlockingDeadlines;

  constructor(private readonly d: TaskWaitsDeps) {
    this.deadlines = new BlockingDeadlines(d.limits.blockingSendTimeoutMs);
  }

  /**
   * Starts a prepared message and answers when the task is terminal or interrupted (or at once
   * with `returnImmediately`), with the task as `view` shows it, or the agent's direct message.
   */
  blocking(ctx: CallContext, prepared: PreparedSend, cfg: BlockingSendConfig): Promise<SendMessageResponse> {
    const wait = this.blockingWait(ctx, cfg);
    wait.begin(prepared);
    return wait.answer;
  }

  /**
   * A blocking send's wait and its answer, made before what it answers is prepared; `begin` starts
   * it, or its `resolve` and `reject` answer without it. SendMessage returns this answer itself
   * while its client check is under way: the promise of the check's reaction, resolved with the
   * wait's, adopted it (a job, a promise, its reaction and two resolving functions a request, and
   * two microtask turns; issue 26).
   */
  blockingWait(ctx: CallContext, cfg: BlockingSendConfig): BlockingWait {
    const wait = new BlockingSend(this.d, ctx, cfg, this.deadlines);
    waitTakingResolvers = wait;
    // A module function takes the promise's resolvers (no executor closure and scope a request).
    wait.answer = new Promise<SendMessageResponse>(takeResolvers);
    return wait;
  }

  /** Starts a prepared message and streams the task's events until it ends or needs input. */
  stream(prepared: PreparedSend): TaskStream {
    const stream = new TaskStream(prepared.taskId, 'stream', prepared.startSeq, this.d.streams, this.d.dir);
    // A new task is created here: its events reach local subscribers synchronously, so no
    // catch-up read from the log is needed (it would cost one per request).
    stream.listen(this.d.bus, prepared.existing ? prepared.startSeq : undefined);
    // A continuation: the stream still opens with the task as it stands (spec §3.1.2).
    if (prepared.existing) stream.open(prepared.existing.task, prepared.startSeq);
    prepared.start(stream);
    return stream;
  }

  /**
   * A task's live events after `snapshot` (opening with the task as it stands), or with a
   * `lastEventId`, first the events after it replayed from the log.
   */
  async subscribe(taskId: string, snapshot: { task: Task; seq: number }, lastEventId: number | undefined): Promise<TaskStream> {
    const resuming = lastEventId !== undefined && lastEventId >= 0;
    const stream = new TaskStream(taskId, 'subscription', resuming ? lastEventId : snapshot.seq, this.d.streams, this.d.dir);
    if (resuming) stream.holdLive();
    stream.listen(this.d.bus, stream.seenSeq);
    if (!resuming) {
      stream.open(snapshot.task, snapshot.seq);
      return stream;
    }
    // Lossless resume (Agentport extension): replay what the client missed from the event log.
    let after = lastEventId;
    try {
      for (;;) {
        const batch = await this.d.store.readEvents(taskId, after, 500);
        for (const rec of batch) stream.replay(rec);
        if (batch.length < 500) break;
        after = batch[batch.length - 1]!.seq;
      }
    } catch (e) {
      void stream.return();
      throw e;
    }
    stream.replayed();
    // Nothing was missed: open with the snapshot so the stream starts now rather than at the next
    // event, but only when it is exactly the client's last id. A snapshot from the working copy
    // may be ahead of the log (events appended, their commit in flight): opening with it would
    // skip those events when they are published (the resume that lost tick-2).
    if (stream.seenSeq === lastEventId && snapshot.seq === lastEventId) stream.open(snapshot.task, snapshot.seq);
    return stream;
  }
}

/** A blocking send's wait (TaskWaits.blockingWait): started once, or answered without starting. */
export interface BlockingWait {
  readonly answer: Promise<SendMessageResponse>;
  /** Starts the prepared message and waits; a throw rejects the answer. */
  begin(prepared: PreparedSend): void;
  resolve(r: SendMessageResponse): void;
  reject(e: Error): void;
}

/** What a blocking send reads of the request's configuration. */
export interface BlockingSendConfig {
  returnImmediately?: boolean | undefined;
  historyLength?: number | undefined;
}

/** The wait whose promise is being made (BlockingSend's constructor runs just before). */
let waitTakingResolvers: BlockingSend | undefined;

function takeResolvers(resolve: (r: SendMessageResponse) => void, reject: (e: Error) => void): void {
  const wait = waitTakingResolvers!;
  waitTakingResolvers = undefined;
  wait.resolve = resolve;
  wait.reject = reject;
}

/** `subscribe` without options, and `start`'s two options: shared, not a literal a request (both only read). */
const NO_SUBSCRIBE_OPTIONS = Object.freeze({});
const CREATE_TASK_NOW = Object.freeze({ createTaskNow: true });
const CREATE_TASK_LATER = Object.freeze({ createTaskNow: false });

function ignore(): void {}

/**
 * The blocking sends' "no answer yet" deadlines: one timer for all of them, not a timer (a Node
 * Timeout and its argument list) a request. Every wait of a service has the same limit, so they
 * are due in the order they began: a list in that order, linked through the waits themselves (a
 * finished one leaves it at once), and a timer armed for its first.
 */
class BlockingDeadlines {
  private first: BlockingSend | undefined = undefined;
  private last: BlockingSend | undefined = undefined;
  private timer: ReturnType<typeof setTimeout> | undefined = undefined;
  /** the wait the timer was armed for: due when it fires, whatever the clock reads (timers and Date.now() round apart) */
  private armedFor: BlockingSend | undefined = undefined;

  constructor(private readonly limitMs: number) {}

  add(wait: BlockingSend): void {
    wait.deadline = Date.now() + this.limitMs;
    wait.earlier = this.last;
    if (this.last) this.last.later = wait;
    else this.first = wait;
    this.last = wait;
    if (!this.timer) this.arm(wait, this.limitMs);
  }

  remove(wait: BlockingSend): void {
    const { earlier, later } = wait;
    if (earlier) earlier.later = later;
    else if (this.first === wait) this.first = later;
    else return; // not in the list (already due)
    if (later) later.earlier = earlier;
    else this.last = earlier;
    wait.earlier = wait.later = undefined;
  }

  private arm(wait: BlockingSend, ms: number): void {
    this.armedFor = wait;
    this.timer = setTimeout(blockingDeadlinesDue, ms, this);
    this.timer.unref?.();
  }

  /**
   * The timer fired: the wait it was armed for, if still waiting, and every other one whose deadline
   * passed time out. A wait that began later than the one it was armed for (that one answered
   * meanwhile) keeps its own deadline: the timer is armed again for it.
   */
  due(): void {
    this.timer = undefined;
    const armedFor = this.armedFor;
    this.armedFor = undefined;
    const now = Date.now();
    let wait = this.first;
    while (wait && (wait === armedFor || wait.deadline <= now)) {
      this.remove(wait);
      wait.timedOut();
      wait = this.first;
    }
    if (wait) this.arm(wait, Math.max(1, wait.deadline - now));
  }
}

/** The deadlines' timer: a module function given them, not a closure. */
function blockingDeadlinesDue(deadlines: BlockingDeadlines): void {
  deadlines.due();
}

const ANSWER_TIMEOUT = 'The agent did not respond in time';

/**
 * One blocking send's wait for its answer: the task once terminal or interrupted (or at once with
 * `returnImmediately`) as `view` shows it, or the agent's direct message. The run's observer itself:
 * one object with its state in fields, where the wait was eleven closures and their shared scope
 * a request (issue 26: a blocking echo's young-generation bytes).
 */
class BlockingSend implements RunObserver, BlockingWait {
  private settled = false;
  answer!: Promise<SendMessageResponse>;
  /** what it waits on, from `begin` */
  private prepared!: PreparedSend;
  private unsubscribe: (() => void) | undefined = undefined;
  /** when it times out, and its neighbours in the deadlines' list (BlockingDeadlines) */
  deadline = 0;
  earlier: BlockingSend | undefined = undefined;
  later: BlockingSend | undefined = undefined;
  /** the answer's resolvers, set as its promise is made (takeResolvers) */
  resolve: (r: SendMessageResponse) => void = ignore;
  reject: (e: Error) => void = ignore;

  constructor(
    private readonly d: TaskWaitsDeps,
    private readonly ctx: CallContext,
    private readonly cfg: BlockingSendConfig,
    private readonly deadlines: BlockingDeadlines,
  ) {}

  begin(prepared: PreparedSend): void {
    this.prepared = prepared;
    // A blocking send never hangs forever: past the limit the caller gets the task as it stands
    // and can poll or subscribe.
    this.deadlines.add(this);
    // As when it ran in the promise's executor: a throw rejects the answer.
    try {
      this.started(prepared);
    } catch (e) {
      this.reject(e as Error);
    }
  }

  private started(prepared: PreparedSend): void {
    const unsubscribe = this.d.bus.subscribe(
      prepared.taskId,
      (rec) => this.onRecord(rec),
      // A new task is created here: its events reach local subscribers synchronously, so no
      // catch-up read from the log is needed (it would cost one per request).
      prepared.existing ? { afterSeq: prepared.startSeq } : NO_SUBSCRIBE_OPTIONS,
    );
    // answered while subscribing (a bus that replays at once): nothing more to hear
    if (this.settled) unsubscribe();
    else this.unsubscribe = unsubscribe;
    if (prepared.remote && this.cfg.returnImmediately) {
      prepared.start(NO_OBSERVER);
      void this.fromStore();
      return;
    }
    prepared.start(this, this.cfg.returnImmediately === true ? CREATE_TASK_NOW : CREATE_TASK_LATER);
  }

  private onRecord(rec: TaskEventRecord): void {
    if (rec.seq <= this.prepared.startSeq) return;
    const s = stateOf(rec.event);
    if (this.cfg.returnImmediately && 'task' in rec.event) {
      this.finish(this.current() ?? this.view(rec.event.task));
      return;
    }
    if (s && (isTerminal(s) || isInterrupted(s))) {
      // A local working copy is still present here (eviction follows the publish). Without
      // one — the task runs on another replica, or one canceled it — the store has the answer;
      // with neither, the run's end answers instead.
      const l = this.d.live.get(this.prepared.taskId);
      // The committed copy when nothing was applied since: the same task, and the store's text of it is the answer's (ADR 0049).
      if (l && l.seq >= rec.seq) this.finish(this.view(l.durable !== undefined && l.durableSeq === l.seq ? l.durable : l.task));
      else if (this.prepared.remote || this.d.cluster) void this.fromStore();
    }
  }

  onDuplicate(t: Task): void {
    this.finish(this.view(t));
  }

  onMessage(m: Message): void {
    this.finish({ message: m });
  }

  onCommitted(): void {
    if (this.cfg.returnImmediately) {
      const c = this.current();
      if (c) this.finish(c);
    }
  }

  /** The run is over and its last commit is durable: whatever state the task is in now is the
   * answer (a continuation can end without a new event, leaving the task interrupted). */
  onEnd(err?: Error, task?: Task): void {
    this.finish(err ?? (task ? this.view(task) : new A2AError('InvalidAgentResponse')));
  }

  /** The task as the request asked to see it (its historyLength), as the answer. */
  private view(t: Task): SendMessageResponse {
    return { task: viewTask(t, { historyLength: this.cfg.historyLength, maxHistory: this.d.limits.maxHistoryLength }) };
  }

  timedOut(): void {
    const c = this.current();
    if (c) {
      this.finish(c);
      return;
    }
    this.d.store.getTask(this.ctx.agentId, this.prepared.taskId).then(
      (s) => this.finish(s ? this.view(s.task) : new A2AError('Timeout', ANSWER_TIMEOUT)),
      () => this.finish(new A2AError('Timeout', ANSWER_TIMEOUT)),
    );
  }

  private current(): SendMessageResponse | undefined {
    const l = this.d.live.get(this.prepared.taskId);
    return l ? this.view(l.task) : undefined;
  }

  private fromStore(): Promise<unknown> {
    return this.d.store.getTask(this.ctx.agentId, this.prepared.taskId).then(
      (st) => st && this.finish(this.view(st.task)),
      () => {},
    );
  }

  private finish(r: SendMessageResponse | Error): void {
    if (this.settled) return;
    this.settled = true;
    this.deadlines.remove(this);
    this.unsubscribe?.();
    if (r instanceof Error) this.reject(r);
    else this.resolve(r);
  }
}
