/**
 * The A2A task engine's entry: every v1.0 operation with the semantics of spec §3 and §7, over the
 * store and event-bus seams, and the blocking and streaming waits on a task's committed events.
 * The work is done by small parts: the message intake (what a SendMessage targets), the run
 * supervisor (core/execution), the task log (append, commit, publish), cluster routing
 * (core/cluster) and the engine's start-up recovery and shutdown.
 */
import { startTaskSpan, traceIterable, tracingOn } from '../../observability/tracing/index.js';
import type { TaskUsagePolicy } from '../usage/task-usage.js';
import { A2AError, invalidParams } from '../../protocol/a2a/errors.js';
import {
  isInterrupted,
  isTerminal,
  type AgentCard,
  type CancelTaskRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsRequest,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksRequest,
  type ListTasksResponse,
  type SendMessageRequest,
  type SendMessageResponse,
  type SubscribeToTaskRequest,
  type Task,
  type TaskPushConfigRef,
  type TaskPushNotificationConfig,
} from '../../protocol/a2a/types.js';
import type { EventBus } from '../../bus/event-bus.js';
import type { GroupCommitter } from '../../store/group-commit.js';
import { ConcurrentUpdateError, type Store, type StoredTask } from '../../store/store.js';
import type { ClusterOptions } from '../cluster/cluster-options.js';
import { ClusterRouter } from '../cluster/cluster-router.js';
import type { A2AHandler, CallContext, StreamItem } from '../a2a-handler.js';
import type { AgentRegistry, RegisteredAgent } from '../agents/agent-registry.js';
import { AsyncQueue } from '../streams/async-queue.js';
import { lazyStream } from '../streams/lazy-stream.js';
import { RunSupervisor } from '../execution/run-supervisor.js';
import type { HostedAgentCallsDeps } from '../execution/hosted-agent-calls.js';
import { EngineLifecycle } from './engine-lifecycle.js';
import { LiveTasks } from '../task-state/live-tasks.js';
import { clientGone, MessageIntake } from './message-intake.js';
import { OpenStreams } from './open-streams.js';
import type { PreparedSend } from './prepared-send.js';
import { decodeCursor, encodeCursor } from './page-token.js';
import { PushConfigOperations } from './push-config-operations.js';
import { TaskDirectory } from '../task-state/task-directory.js';
import { TaskLog } from '../task-state/task-log.js';
import { type BlockingWait, TaskWaits } from './task-waits.js';
import { viewTask } from '../task-state/task-projection.js';
import { checkWebhook, type PushUrlGuard } from '../push/webhook-check.js';
import { isoTimestamp } from '../iso-timestamp.js';
import type { Metrics } from '../../observability/metrics/index.js';

export { SERVER_FAILURE_MESSAGES } from '../execution/failure-messages.js';
export { WEBHOOK_REFUSED, type PushUrlGuard } from '../push/webhook-check.js';

export interface TaskServiceLimits {
  blockingSendTimeoutMs: number;
  maxHistoryLength: number;
  /** open SendStreamingMessage + SubscribeToTask streams per task */
  maxConcurrentStreamsPerTask: number;
  /**
   * a task-creating SendMessage that repeats a messageId of the same caller and agent returns the
   * first task (default true); off, every such message creates a task (the TCK profile: the TCK
   * sends one messageId in several of its tests, docs/compliance.md)
   */
  deduplicateMessageIds?: boolean;
}

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface TaskServiceDeps {
  registry: AgentRegistry;
  store: Store;
  committer: GroupCommitter;
  bus: EventBus;
  limits: TaskServiceLimits;
  log: Logger;
  pushGuard?: PushUrlGuard;
  /** called after a commit that queued push deliveries */
  onOutbox?: () => void;
  /**
   * Distributed mode (a store shared by replicas): tasks are leased to the replica running them,
   * messages and cancels for a task running elsewhere are routed over the bus, and tasks whose
   * replica died are recovered by a sweep.
   */
  cluster?: ClusterOptions;
  /** usage records on: each task's record is written in its commits (src/core/usage) */
  usage?: TaskUsagePolicy;
  /** metrics on (src/observability/metrics): tasks, streams, leases and forwarding are counted */
  metrics?: Metrics;
  /** AgentContext.agents: runs call other hosted agents through this (the outer handler) as their caller */
  hostedAgents?: Omit<HostedAgentCallsDeps, 'registry'>;
}

/**
 * Tries of a cancel whose commit another replica's takeover refused: each is one more takeover
 * between reading the task and writing the cancel, so a few suffice (two concurrent cancels of one
 * task need two).
 */
const CANCEL_ATTEMPTS = 3;

/** A SendMessage without a configuration: one shared object, only read. */
const NO_CONFIGURATION: NonNullable<SendMessageRequest['configuration']> = Object.freeze({});

/** A retried send whose caller does not wait for its task: asked not to, or nothing left to wait for. */
function answeredAsItStands(task: Task, cfg: NonNullable<SendMessageRequest['configuration']>): boolean {
  return !!cfg.returnImmediately || isTerminal(task.status.state) || isInterrupted(task.status.state);
}

export class TaskService implements A2AHandler {
  private readonly dir: TaskDirectory;
  private readonly pushConfigs: PushConfigOperations;
  /** tasks with activity in this process: their one owner, shared by every part below */
  private readonly live: LiveTasks;
  private readonly streams: OpenStreams;
  private readonly taskLog: TaskLog;
  private readonly runs: RunSupervisor;
  private readonly router: ClusterRouter;
  private readonly intake: MessageIntake;
  private readonly lifecycle: EngineLifecycle;
  private readonly waits: TaskWaits;

  constructor(private readonly d: TaskServiceDeps) {
    this.live = new LiveTasks(d.store);
    this.dir = new TaskDirectory(this.live, d.registry, d.store, d.limits.maxHistoryLength);
    const webhook = (url: string) => checkWebhook(d.pushGuard, d.log, url);
    this.pushConfigs = new PushConfigOperations(this.dir, d.store, webhook, d.cluster ? (taskId) => d.bus.publishControl({ type: 'push-configs', taskId }) : undefined);
    this.streams = new OpenStreams(d.limits.maxConcurrentStreamsPerTask);
    // Only a deduplicating service keys a task by its messageId (SendMessage idempotency).
    const deduplicates = d.limits.deduplicateMessageIds !== false;
    const closed = () => this.lifecycle.closed;
    const cluster = d.cluster ? { cluster: d.cluster } : {};
    this.taskLog = new TaskLog({ live: this.live, committer: d.committer, bus: d.bus, onOutbox: () => d.onOutbox?.(), ...cluster, ...(d.usage ? { usage: d.usage } : {}), ...(d.metrics ? { metrics: d.metrics } : {}) });
    this.runs = new RunSupervisor({
      live: this.live,
      store: d.store,
      log: d.log,
      taskLog: this.taskLog,
      deduplicates,
      settle: (t) => this.router.settle(t),
      ...cluster,
      ...(d.hostedAgents ? { hostedAgents: { registry: d.registry, ...d.hostedAgents } } : {}),
    });
    this.router = new ClusterRouter({
      registry: d.registry,
      store: d.store,
      bus: d.bus,
      log: d.log,
      dir: this.dir,
      taskLog: this.taskLog,
      supervisor: this.runs,
      receive: (ctx, req) => this.sendMessage(ctx, req),
      closed,
      ...cluster,
      ...(d.metrics ? { metrics: d.metrics } : {}),
    });
    this.intake = new MessageIntake({
      store: d.store,
      dir: this.dir,
      taskLog: this.taskLog,
      supervisor: this.runs,
      router: this.router,
      log: d.log,
      deduplicates,
      checkWebhook: webhook,
      closed,
      ...cluster,
    });
    this.waits = new TaskWaits({ live: this.live, store: d.store, bus: d.bus, dir: this.dir, streams: this.streams, limits: d.limits, ...cluster });
    this.lifecycle = new EngineLifecycle({
      resumable: (agentId) => d.registry.get(agentId)?.definition.resumable === true,
      store: d.store,
      committer: d.committer,
      live: this.live,
      taskLog: this.taskLog,
      supervisor: this.runs,
      router: this.router,
      streams: this.streams,
      ...cluster,
    });
    if (d.metrics) {
      // Read when Prometheus scrapes: nothing is kept up to date on the hot path for these.
      const runs = this.runs;
      const streams = this.streams;
      Object.assign(d.metrics.sources, {
        tasksRunning: () => runs.running,
        openStreams: () => streams.count(),
        ...(d.cluster ? { leasesHeld: () => runs.heldTaskIds().length } : {}),
      });
    }
  }

  /** Distributed mode: starts renewing leases and sweeping for orphaned tasks. */
  startCluster(): void {
    this.router.start();
  }

  /** One sweep for orphaned tasks now (tests, and start-up). */
  sweepOrphans(): Promise<number> {
    return this.router.sweepOrphans();
  }

  /** Start-up recovery for a store this process owns alone (see EngineLifecycle). */
  recoverOrphanedTasks(): Promise<number> {
    return this.lifecycle.recoverOrphanedTasks();
  }

  /** Stops accepting work, cancels running executors and flushes pending commits. */
  close(): Promise<void> {
    return this.lifecycle.close();
  }

  // ---------------------------------------------------------------- SendMessage

  /**
   * Not async on a blocking echo's path (a message naming no task, the retry lookup answered at hand,
   * prepared without lookups): its one wait, the client check, is a reaction that takes the rest of
   * the steps, where an async function made a generator, a frame of every register and an await's
   * closures a request (issue 26, docs/benchmarks.md frame31). Every other path is the async
   * `sendAwaiting`. A reaction runs one turn after the check settles, as the code after `await`
   * did; the answer is the blocking wait's own promise, made before the check, not one resolved
   * with it (a thenable job, a promise and two resolving functions a request, and two turns: issue
   * 26, docs/benchmarks.md alloc35). A throw before the check is a rejection, as in `sendAwaiting`.
   */
  sendMessage(ctx: CallContext, req: SendMessageRequest): Promise<SendMessageResponse> {
    let agent: RegisteredAgent;
    let stored: StoredTask | undefined | Promise<StoredTask | undefined>;
    let gone: boolean | Promise<boolean> | undefined;
    try {
      agent = this.dir.agent(ctx);
      if (req.message.taskId) return this.sendAwaiting(ctx, req, agent, undefined);
      // MessageIntake.retriedTask's steps, in this frame (issue 26: its async frame, promise and awaits a request).
      stored = this.intake.storedRetry(ctx, req);
      if (stored instanceof Promise || !this.intake.preparesAtHand(ctx, req)) return this.sendAwaiting(ctx, req, agent, stored);
      gone = ctx.clientGone?.();
    } catch (e) {
      return Promise.reject(e);
    }
    const atHand = stored;
    // The answer is the wait's own, made now (TaskWaits.blockingWait): what follows the check
    // answers it or starts it, and the check's reaction returns nothing to be adopted.
    const wait = this.waits.blockingWait(ctx, req.configuration ?? NO_CONFIGURATION);
    // Promise.resolve then .then is what `await` does with the check's answer: the same turn.
    void Promise.resolve(gone).then((g) => this.sendAtHand(ctx, req, agent, atHand, g, wait));
    return wait.answer;
  }

  /** The blocking echo's steps after the client check: nothing left to wait for but the task. */
  private sendAtHand(ctx: CallContext, req: SendMessageRequest, agent: RegisteredAgent, stored: StoredTask | undefined, gone: boolean | undefined, wait: BlockingWait): void {
    let prepared: PreparedSend;
    try {
      if (gone) throw clientGone();
      const cfg = req.configuration ?? NO_CONFIGURATION;
      const retried = this.intake.asItStands(stored);
      if (retried && answeredAsItStands(retried.task, cfg)) {
        wait.resolve(this.retriedView(retried.task, cfg));
        return;
      }
      // preparesAtHand: no promise here.
      prepared = retried ? this.intake.awaitRetried(retried) : (this.intake.awaitStarting(ctx, req) ?? (this.intake.prepare(ctx, agent, req) as PreparedSend));
    } catch (e) {
      wait.reject(e as Error);
      return;
    }
    // Not awaited: the frame that awaited kept the request, the retried task and the prepared send
    // alive until the task ended, through every scavenge (issue 26, tail21).
    wait.begin(prepared);
  }

  /** Every other SendMessage: a task named, the retry looked up by promise, or a send the intake prepares with lookups. */
  private async sendAwaiting(ctx: CallContext, req: SendMessageRequest, agent: RegisteredAgent, stored: StoredTask | undefined | Promise<StoredTask | undefined>): Promise<SendMessageResponse> {
    // Read where the answer is made (the blocking wait's view), not through a closure made per request.
    const cfg = req.configuration ?? NO_CONFIGURATION;
    let retried: { task: Task; seq: number } | undefined;
    if (!req.message.taskId) {
      if (stored instanceof Promise) stored = await stored;
      if (await ctx.clientGone?.()) throw clientGone();
      retried = this.intake.asItStands(stored);
    }
    if (retried && answeredAsItStands(retried.task, cfg)) return this.retriedView(retried.task, cfg);
    // A retry while the first run has not produced its first event waits on that run (issue 25 C1a).
    let prepared = retried ? this.intake.awaitRetried(retried) : (this.intake.awaitStarting(ctx, req) ?? this.intake.prepare(ctx, agent, req));
    // Awaited only when the intake had to look something up (a prepared echo is no promise).
    if (prepared instanceof Promise) prepared = await prepared;
    // Returned, not awaited (see sendAtHand); costs a job and a microtask turn more. No try here: the same rejection.
    return this.waits.blocking(ctx, prepared, cfg);
  }

  /** A retried send answered with its task as it stands, without waiting. */
  private retriedView(task: Task, cfg: NonNullable<SendMessageRequest['configuration']>): SendMessageResponse {
    return { task: viewTask(task, { historyLength: cfg.historyLength, maxHistory: this.d.limits.maxHistoryLength }) };
  }

  sendStreamingMessage(ctx: CallContext, req: SendMessageRequest): AsyncIterable<StreamItem> {
    return lazyStream(async () => {
      const agent = this.dir.agent(ctx);
      if (!agent.streaming) throw new A2AError('UnsupportedOperation', 'This agent does not support streaming');
      const retried = await this.intake.retriedTask(ctx, req);
      if (retried) return this.streamRetried(ctx, retried.task);
      const prepared = await this.intake.prepare(ctx, agent, req);
      return this.waits.stream(prepared);
    });
  }

  /** A retried streaming send: the task as it stands, then its live events (as SubscribeToTask). */
  private async streamRetried(ctx: CallContext, task: Task): Promise<AsyncIterator<StreamItem>> {
    if (isTerminal(task.status.state) || isInterrupted(task.status.state)) {
      const queue = new AsyncQueue<StreamItem>(() => {});
      queue.push({ response: { task: this.dir.viewFull(task) } });
      queue.end();
      return queue;
    }
    return this.subscribeToTask(ctx, { id: task.id })[Symbol.asyncIterator]();
  }

  // ---------------------------------------------------------------- reads

  async getTask(ctx: CallContext, req: GetTaskRequest): Promise<Task> {
    const t = await this.dir.visibleTask(ctx, req.id);
    return viewTask(t, { historyLength: req.historyLength, maxHistory: this.d.limits.maxHistoryLength });
  }

  async listTasks(ctx: CallContext, req: ListTasksRequest): Promise<ListTasksResponse> {
    this.dir.agent(ctx);
    const pageSize = req.pageSize ?? 50;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) throw invalidParams('pageSize', 'must be between 1 and 100');
    const cursor = req.pageToken ? decodeCursor(req.pageToken) : undefined;
    const page = await this.d.store.listTasks({
      agentId: ctx.agentId,
      owner: ctx.principal.subject,
      contextId: req.contextId,
      status: req.status,
      statusTimeAfter: req.statusTimestampAfter ? Date.parse(req.statusTimestampAfter) : undefined,
      pageSize,
      after: cursor ? { statusTime: cursor.statusTime, taskId: cursor.taskId } : undefined,
      knownTotal: cursor?.total,
    });
    return {
      tasks: page.tasks.map((s) => viewTask(s.task, { historyLength: req.historyLength, maxHistory: this.d.limits.maxHistoryLength, includeArtifacts: req.includeArtifacts ?? false })),
      nextPageToken: page.next ? encodeCursor({ ...page.next, total: page.totalSize }) : '',
      pageSize,
      totalSize: page.totalSize,
    };
  }

  // ---------------------------------------------------------------- cancel

  async cancelTask(ctx: CallContext, req: CancelTaskRequest): Promise<Task> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.cancelOnce(ctx, req);
      } catch (e) {
        // Distributed mode: the working copy was stale. A replica still running the task learns
        // over the bus, later, that another one took it over (a cancel there, a recovery), and
        // its commit is refused on the version that takeover bumped. The failed commit dropped
        // the copy: decide again on the task as the store has it (CANCELED: answered as such).
        if (!(this.d.cluster && e instanceof ConcurrentUpdateError) || attempt >= CANCEL_ATTEMPTS) throw e;
      }
    }
  }

  private async cancelOnce(ctx: CallContext, req: CancelTaskRequest): Promise<Task> {
    const live = await this.dir.getLive(ctx, req.id);
    if (!live) throw new A2AError('TaskNotFound', `Task ${req.id} was not found`);
    if (this.d.cluster && !live.run) await this.router.preempt(live);
    const state = live.task.status.state;
    if (state === 'TASK_STATE_CANCELED') return this.dir.viewFull(live.task);
    if (isTerminal(state)) throw new A2AError('TaskNotCancelable', `Task ${req.id} is already ${state} and cannot be canceled`);
    const run = live.run;
    if (run) {
      run.finished = true;
      run.cancel();
    }
    await this.taskLog.append(
      live,
      [
        {
          statusUpdate: {
            taskId: live.task.id,
            contextId: live.task.contextId,
            status: { state: 'TASK_STATE_CANCELED', timestamp: isoTimestamp() },
            ...(req.metadata ? { metadata: req.metadata } : {}),
          },
        },
      ],
      ctx.trace,
    );
    // Reaches an executor running in another process (distributed bus); a no-op in-process.
    this.d.bus.publishControl({ type: 'cancel', taskId: live.task.id });
    return this.dir.viewFull(live.task);
  }

  // ---------------------------------------------------------------- subscribe

  subscribeToTask(ctx: CallContext, req: SubscribeToTaskRequest, lastEventId?: number): AsyncIterable<StreamItem> {
    return lazyStream(async () => {
      const agent = this.dir.agent(ctx);
      if (!agent.streaming) throw new A2AError('UnsupportedOperation', 'This agent does not support streaming');
      const snapshot = await this.dir.visibleTaskWithSeq(ctx, req.id);
      const resuming = lastEventId !== undefined && lastEventId >= 0;
      if (resuming && lastEventId > snapshot.seq) {
        throw invalidParams('Last-Event-ID', `is ahead of this task's event log (last event ${snapshot.seq})`);
      }
      if (isTerminal(snapshot.task.status.state) && !(resuming && lastEventId < snapshot.seq)) {
        throw new A2AError('UnsupportedOperation', `Task ${req.id} is in a terminal state; use GetTask to read it`);
      }
      const queue = await this.waits.subscribe(req.id, snapshot, lastEventId);
      if (!tracingOn()) return queue;
      // The stream continues the trace the task was created in, wherever and whenever it is served.
      const span = () => startTaskSpan('task.stream', snapshot.traceParent, ctx.trace, { attributes: { 'agentport.task.id': req.id, 'agentport.agent': ctx.agentId } });
      return traceIterable(span, () => ({ [Symbol.asyncIterator]: () => queue }))[Symbol.asyncIterator]();
    });
  }

  // ---------------------------------------------------------------- push configs

  createTaskPushNotificationConfig(ctx: CallContext, config: TaskPushNotificationConfig): Promise<TaskPushNotificationConfig> {
    return this.pushConfigs.create(ctx, config);
  }

  getTaskPushNotificationConfig(ctx: CallContext, ref: TaskPushConfigRef): Promise<TaskPushNotificationConfig> {
    return this.pushConfigs.get(ctx, ref);
  }

  listTaskPushNotificationConfigs(ctx: CallContext, req: ListTaskPushNotificationConfigsRequest): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.pushConfigs.list(ctx, req);
  }

  deleteTaskPushNotificationConfig(ctx: CallContext, ref: TaskPushConfigRef): Promise<void> {
    return this.pushConfigs.delete(ctx, ref);
  }

  // ---------------------------------------------------------------- cards & agents

  async getExtendedAgentCard(ctx: CallContext): Promise<AgentCard> {
    const agent = this.dir.agent(ctx);
    if (!agent.extendedCard) throw new A2AError('UnsupportedOperation', 'This agent does not offer an extended agent card');
    if (agent.extendedCardRequiresAuth && !ctx.principal.authenticated) throw new A2AError('Unauthenticated', 'The extended agent card requires authentication');
    if (!agent.extendedAgentCard) throw new A2AError('ExtendedAgentCardNotConfigured');
    return agent.extendedAgentCard;
  }

  agentExtensions(agentId: string) {
    const a = this.d.registry.get(agentId);
    return a ? { supported: a.supportedExtensions, required: a.requiredExtensions } : undefined;
  }

  hasAgent(agentId: string): boolean {
    return this.d.registry.get(agentId) !== undefined;
  }
}
