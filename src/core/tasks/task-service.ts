/**
 * The A2A task engine: every v1.0 operation with the semantics of spec §3 and §7, over the store
 * and event-bus seams. Each state change is an event appended to the task's log in the same commit
 * as the projection; streams, blocking waits and push delivery all consume those committed events.
 */
import { uuidv7 as randomUUID } from '../ids/uuid-v7.js';
import type { AgentEvent } from '../../agents/sdk/agent.js';
import { toParts } from '../../agents/sdk/agent.js';
import { A2AError, invalidParams, toA2AError } from '../../protocol/a2a/errors.js';
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
  type Message,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
  type TaskPushConfigRef,
  type TaskPushNotificationConfig,
  type TaskState,
} from '../../protocol/a2a/types.js';
import type { EventBus, ForwardedMessage, TaskControl } from '../../bus/event-bus.js';
import type { GroupCommitter } from '../../store/group-commit.js';
import { ConcurrentUpdateError, StoreUnavailableError, type ClaimedTask, type NewOutboxEntry, type Store, type StoredTask, type TaskEventPayload, type TaskEventRecord } from '../../store/store.js';
import type { ClusterOptions } from '../cluster/cluster-options.js';
import { LeaseKeeper } from '../cluster/lease-keeper.js';
import { OrphanSweeper } from '../cluster/orphan-sweeper.js';
import { OutageSettler } from '../cluster/outage-settler.js';
import type { A2AHandler, CallContext, StreamItem } from '../a2a-handler.js';
import type { AgentRegistry, RegisteredAgent } from '../agents/agent-registry.js';
import { AsyncQueue } from '../events/async-queue.js';
import { lazyStream } from '../events/lazy-stream.js';
import { checkInputModes } from './input-modes.js';
import { withoutKey } from './without-key.js';
import { AgentRun, type AgentRunHost } from '../execution/agent-run.js';
import { LiveTask, type PushTarget } from './live-task.js';
import { decodeCursor, encodeCursor } from './page-token.js';
import { chosenTaskIdOf } from './chosen-task-id.js';
import { PushConfigOperations } from './push-config-operations.js';
import { pushBodyVersionOfCall, tagForStorage, type PushBodyVersion } from '../push/push-body-version.js';
import { TaskDirectory } from './task-directory.js';
import { applyEvent, structuredCloneTask, viewTask } from './task-projection.js';

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

export interface PushUrlGuard {
  /** Throws with a client-safe message when the URL may not be used as a webhook. */
  check(url: string): Promise<unknown>;
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
}

/** the one answer for a webhook whose host the outbound (SSRF) policy refuses, whatever the reason */
export const WEBHOOK_REFUSED = 'the push notification URL is refused by the server\'s outbound network policy';
const FAILED_SAFE_MESSAGE = 'The agent failed while processing this task.';
/**
 * Why a task was recovered, in words that say what happened (issue 19 C2): a replica that stops
 * renewing its lease may have died, been paused, or lost the database; only its lease is known lost.
 */
const LEASE_LOST_MESSAGE = 'Lease lost: the replica running this task stopped renewing its lease before the task finished (it stopped, stalled, or lost the database); send the request again.';
const STORAGE_UNAVAILABLE_MESSAGE = 'Storage unavailable: the database could not be reached for longer than this replica waits while the task was running; send the request again.';
const STOPPED_MESSAGE = 'The agent stopped without finishing this task.';
/** The status texts of FAILED tasks the server ended, not the agent (a crash, a lost replica): protocol-level failures to MCP's tasks extension. */
export const SERVER_FAILURE_MESSAGES: ReadonlySet<string> = new Set([FAILED_SAFE_MESSAGE, LEASE_LOST_MESSAGE, STORAGE_UNAVAILABLE_MESSAGE, STOPPED_MESSAGE]);

const stateOf = (e: TaskEventPayload): TaskState | undefined =>
  'statusUpdate' in e ? e.statusUpdate.status.state : 'task' in e ? e.task.status.state : undefined;

/** Streams close at a terminal state and at INPUT_REQUIRED; AUTH_REQUIRED keeps them open (spec §7.6.1). */
const endsStream = (s: TaskState | undefined): boolean => s !== undefined && (isTerminal(s) || s === 'TASK_STATE_INPUT_REQUIRED');

const isStreamEvent = (e: TaskEventPayload): e is StreamResponse => !('userMessage' in e);

export class TaskService implements A2AHandler, AgentRunHost {
  private readonly dir: TaskDirectory;
  private readonly pushConfigs: PushConfigOperations;
  /** tasks with activity in this process (shared with the directory) */
  private readonly live: Map<string, LiveTask>;
  private readonly runs = new Set<AgentRun>();
  private readonly openStreams = new Map<string, number>();
  private readonly streams = new Set<AsyncQueue<StreamItem>>();
  private readonly runOutcome = new WeakMap<AgentRun, RunObserver>();
  /** runs whose commit failure was handled (later failures of the same run are its echoes) */
  private readonly commitFailed = new WeakSet<AgentRun>();
  private readonly settler?: OutageSettler;
  private closed = false;
  private readonly keeper?: LeaseKeeper;
  private readonly sweeper?: OrphanSweeper;

  constructor(private readonly d: TaskServiceDeps) {
    this.dir = new TaskDirectory(d.registry, d.store, d.limits.maxHistoryLength);
    this.live = this.dir.live;
    this.pushConfigs = new PushConfigOperations(
      this.dir,
      d.store,
      (url) => this.checkWebhook(url),
      d.cluster ? (taskId) => d.bus.publishControl({ type: 'push-configs', taskId }) : undefined,
    );
    d.bus.onControl((signal) => this.onControl(signal));
    if (d.cluster) {
      this.keeper = new LeaseKeeper({ store: d.store, cluster: d.cluster, held: () => this.heldTaskIds(), onLost: (id) => this.dropTask(id, 'lease lost'), log: d.log });
      this.sweeper = new OrphanSweeper({ store: d.store, cluster: d.cluster, recover: (t) => this.recoverOrphan(t), log: d.log });
      this.settler = new OutageSettler({ store: d.store, cluster: d.cluster, recover: (t) => this.recoverOrphan(t, STORAGE_UNAVAILABLE_MESSAGE), log: d.log });
    }
  }

  /** Distributed mode: starts renewing leases and sweeping for orphaned tasks. */
  startCluster(): void {
    this.keeper?.start();
    this.sweeper?.start();
  }

  /** One sweep for orphaned tasks now (tests, and start-up). */
  sweepOrphans(): Promise<number> {
    return this.sweeper?.sweep() ?? Promise.resolve(0);
  }

  // ---------------------------------------------------------------- SendMessage

  async sendMessage(ctx: CallContext, req: SendMessageRequest): Promise<SendMessageResponse> {
    const agent = this.dir.agent(ctx);
    const cfg = req.configuration ?? {};
    const view = (t: Task): SendMessageResponse => ({ task: viewTask(t, { historyLength: cfg.historyLength, maxHistory: this.d.limits.maxHistoryLength }) });
    const retried = await this.retriedTask(ctx, req);
    if (retried && (cfg.returnImmediately || isTerminal(retried.task.status.state) || isInterrupted(retried.task.status.state))) return view(retried.task);
    const prepared = retried ? this.awaitRetried(retried) : await this.prepare(ctx, agent, req);

    return new Promise<SendMessageResponse>((resolve, reject) => {
      let settled = false;
      let unsubscribe: () => void = () => {};
      const finish = (r: SendMessageResponse | Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        unsubscribe();
        if (r instanceof Error) reject(r);
        else resolve(r);
      };
      const current = () => {
        const l = this.live.get(prepared.taskId);
        return l ? view(l.task) : undefined;
      };
      const timer = setTimeout(() => {
        // A blocking send never hangs forever: past the limit the caller gets the task as it stands
        // and can poll or subscribe.
        const c = current();
        if (c) return finish(c);
        this.d.store.getTask(ctx.agentId, prepared.taskId).then(
          (s) => finish(s ? view(s.task) : new A2AError('Timeout', 'The agent did not respond in time')),
          () => finish(new A2AError('Timeout', 'The agent did not respond in time')),
        );
      }, this.d.limits.blockingSendTimeoutMs);
      timer.unref?.();

      const fromStore = () =>
        this.d.store.getTask(ctx.agentId, prepared.taskId).then(
          (st) => st && finish(view(st.task)),
          () => {},
        );
      unsubscribe = this.d.bus.subscribe(
        prepared.taskId,
        (rec) => {
          if (rec.seq <= prepared.startSeq) return;
          const s = stateOf(rec.event);
          if (cfg.returnImmediately && 'task' in rec.event) return finish(current() ?? view(rec.event.task));
          if (s && (isTerminal(s) || isInterrupted(s))) {
            // A local working copy is still present here (eviction follows the publish). Without
            // one — the task runs on another replica, or one canceled it — the store has the answer;
            // with neither, the run's end answers instead.
            const l = this.live.get(prepared.taskId);
            if (l && l.seq >= rec.seq) finish(view(l.task));
            else if (prepared.remote || this.d.cluster) void fromStore();
          }
        },
        // A new task is created here: its events reach local subscribers synchronously, so no
        // catch-up read from the log is needed (it would cost one per request).
        prepared.existing ? { afterSeq: prepared.startSeq } : {},
      );

      if (prepared.remote && cfg.returnImmediately) {
        prepared.start(NO_OBSERVER);
        return void fromStore();
      }
      prepared.start({
        onDuplicate: (t) => finish(view(t)),
        onMessage: (m) => finish({ message: m }),
        onCommitted: () => {
          if (cfg.returnImmediately) {
            const c = current();
            if (c) finish(c);
          }
        },
        // The run is over and its last commit is durable: whatever state the task is in now is the
        // answer (a continuation can end without a new event, leaving the task interrupted).
        onEnd: (err, task) => finish(err ?? (task ? view(task) : new A2AError('InvalidAgentResponse'))),
      });
    });
  }

  sendStreamingMessage(ctx: CallContext, req: SendMessageRequest): AsyncIterable<StreamItem> {
    return lazyStream(async () => {
      const agent = this.dir.agent(ctx);
      if (!agent.streaming) throw new A2AError('UnsupportedOperation', 'This agent does not support streaming');
      const retried = await this.retriedTask(ctx, req);
      if (retried) return this.streamRetried(ctx, retried.task);
      const prepared = await this.prepare(ctx, agent, req);
      const release = this.admitStream(prepared.taskId);
      const queue: AsyncQueue<StreamItem> = new AsyncQueue<StreamItem>(() => (unsubscribe(), release(), this.streams.delete(queue)));
      this.streams.add(queue);
      const unsubscribe = this.d.bus.subscribe(
        prepared.taskId,
        (rec) => {
          if (rec.seq <= prepared.startSeq || !isStreamEvent(rec.event)) return;
          queue.push({ seq: rec.seq, response: rec.event });
          if (endsStream(stateOf(rec.event))) queue.end();
        },
        // A new task is created here: its events reach local subscribers synchronously, so no
        // catch-up read from the log is needed (it would cost one per request).
        prepared.existing ? { afterSeq: prepared.startSeq } : {},
      );
      if (prepared.existing) {
        // A continuation: the stream still opens with the task as it stands (spec §3.1.2).
        queue.push({ seq: prepared.startSeq, response: { task: this.dir.viewFull(prepared.existing.task) } });
      }
      prepared.start({
        onDuplicate: (t) => {
          queue.push({ response: { task: this.dir.viewFull(t) } });
          queue.end();
        },
        onMessage: (m) => {
          queue.push({ response: { message: m } });
          queue.end();
        },
        onCommitted: () => {},
        onEnd: (err, task) => {
          if (err) return queue.end(err);
          // Nothing more will happen on this task until a new message arrives.
          if (task && (isTerminal(task.status.state) || isInterrupted(task.status.state))) queue.end();
        },
      });
      return queue;
    });
  }

  /**
   * SendMessage idempotency (issue 19 C1): the task an earlier request of this caller created with
   * the same messageId, as it stands. Only task-creating messages are keyed; the key lives as long as
   * the task. C4: a caller that went away while its request was queued starts nothing.
   */
  private get deduplicates(): boolean {
    return this.d.limits.deduplicateMessageIds !== false;
  }

  private async retriedTask(ctx: CallContext, req: SendMessageRequest): Promise<{ task: Task; seq: number } | undefined> {
    if (req.message.taskId || typeof req.message.messageId !== 'string') return undefined;
    const s = this.deduplicates ? await this.d.store.findTaskByMessageId(ctx.agentId, ctx.principal.subject, req.message.messageId) : undefined;
    if (await ctx.clientGone?.()) throw new A2AError('Unavailable', 'The client closed the connection before the request started');
    if (!s) return undefined;
    const live = this.live.get(s.task.id);
    return live && live.seq >= s.seq ? { task: live.task, seq: live.seq } : { task: s.task, seq: s.seq };
  }

  /** A starter for a retried blocking send: nothing runs again; the caller waits on the first task. */
  private awaitRetried(t: { task: Task; seq: number }) {
    return { taskId: t.task.id, contextId: t.task.contextId, startSeq: t.seq, existing: t, start: (_obs: RunObserver) => {}, remote: true };
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

  /** Validates the request, resolves the task it targets and returns a starter for its run. */
  private async prepare(ctx: CallContext, agent: RegisteredAgent, req: SendMessageRequest, forwarded = false) {
    if (this.closed) throw new A2AError('Unavailable', 'The server is shutting down');
    const msg = req.message;
    if (msg.role !== 'ROLE_USER') throw invalidParams('message.role', 'must be ROLE_USER for client messages');
    const inlinePush = req.configuration?.taskPushNotificationConfig;
    if (inlinePush) {
      if (!agent.pushNotifications) throw new A2AError('PushNotificationNotSupported');
      await this.checkWebhook(inlinePush.url);
    }
    checkInputModes(agent, msg);
    const referenceTasks = await this.loadReferences(ctx, msg.referenceTaskIds);

    let existing: LiveTask | undefined;
    let taskId: string;
    let contextId: string;
    // A v0.1 client names its task: a message under that name continues the caller's task when it
    // exists and creates it otherwise (decided here, owner-scoped, under the send permission alone).
    const chosen = msg.taskId ? undefined : chosenTaskIdOf(ctx);
    const named = msg.taskId || (chosen !== undefined && (await this.dir.getLive(ctx, chosen)) ? chosen : undefined);
    if (named) {
      existing = await this.dir.getLive(ctx, named);
      if (!existing) throw new A2AError('TaskNotFound', `Task ${named} was not found`);
      if (msg.contextId && msg.contextId !== existing.task.contextId) {
        throw invalidParams('message.contextId', 'does not match the context of the task named by message.taskId');
      }
      if (isTerminal(existing.task.status.state)) {
        throw new A2AError('UnsupportedOperation', `Task ${named} is in a terminal state and cannot accept messages; start a new task in the same contextId`);
      }
      taskId = existing.task.id;
      contextId = existing.task.contextId;
      if (this.d.cluster && !existing.run && !(await this.acquire(existing))) {
        // Another replica holds the task (its executor may be running there): the message goes to it.
        this.dir.evictIfIdle(existing);
        if (forwarded) throw new A2AError('Unavailable', `Task ${taskId} moved to another replica`);
        return this.forwardTo(ctx, agent, req, existing);
      }
      if (isTerminal(existing.task.status.state)) {
        throw new A2AError('UnsupportedOperation', `Task ${named} is in a terminal state and cannot accept messages; start a new task in the same contextId`);
      }
    } else {
      taskId = chosen ?? randomUUID();
      contextId = msg.contextId ?? randomUUID();
    }
    // Built without `delete`: deleting a key turns the object into a slow dictionary-mode object.
    const userMessage: Message = existing ? { ...msg, taskId, contextId } : withoutKey({ ...msg, contextId }, 'taskId');
    const startSeq = existing?.seq ?? 0;
    const activated = ctx.requestedExtensions.filter((u) => agent.supportedExtensions.includes(u));

    const start = (obs: RunObserver) => {
      if (existing?.run) {
        // At most one executor per task: a message to a task whose executor is still live goes to it.
        existing.run.deliver(userMessage);
        this.runOutcome.set(existing.run, mergeObservers(this.runOutcome.get(existing.run), obs));
        // The message is durable once this commit is: a returnImmediately caller is answered then,
        // even when the executor emits nothing for a while (it need not read the message at once).
        void this.append(existing, [{ userMessage }]).then(
          () => obs.onCommitted(),
          (e) => this.d.log.error({ err: e, taskId }, 'commit failed'),
        );
        return;
      }
      const run = new AgentRun(
        this,
        agent.definition,
        agent.id,
        taskId,
        contextId,
        userMessage,
        existing ? this.dir.viewFull(existing.task) : undefined,
        referenceTasks,
        activated,
        req.configuration?.acceptedOutputModes ?? [],
        req.metadata,
        false,
        ctx.usecases,
        ctx.principal.subject,
      );
      this.runOutcome.set(run, obs);
      pendingCreate.set(run, { owner: ctx.principal.subject, userMessage, inlinePush, pushBodyVersion: pushBodyVersionOfCall(ctx) });
      if (existing) {
        existing.run = run;
        void this.append(existing, [{ userMessage }]).catch((e) => this.d.log.error({ err: e, taskId }, 'commit failed'));
      }
      this.runs.add(run);
      void this.execute(run);
    };
    return { taskId, contextId, startSeq, existing, start, remote: false };
  }

  /**
   * Distributed mode: takes the lease of an idle task so this replica may run it. One claim at a
   * time per working copy; true when this replica holds the task afterwards.
   */
  private async acquire(live: LiveTask): Promise<boolean> {
    while (live.claiming) await live.claiming.catch(() => false);
    if (live.run || live.held) return true;
    const cluster = this.d.cluster!;
    live.claiming = (async () => {
      await live.lastCommit?.catch(() => {});
      const now = Date.now();
      const s = await this.d.store.claimTask(live.agentId, live.task.id, cluster.replicaId, now, now + cluster.leaseTtlMs);
      if (!s) return false;
      live.refresh(s);
      live.held = true;
      return true;
    })();
    try {
      return await live.claiming;
    } finally {
      live.claiming = undefined;
    }
  }

  /** A starter that hands the message to the replica holding the task's lease. */
  private async forwardTo(ctx: CallContext, agent: RegisteredAgent, req: SendMessageRequest, existing: LiveTask) {
    const fresh = await this.d.store.getTask(existing.agentId, existing.task.id);
    const task = fresh ?? { task: existing.task, seq: existing.seq };
    if (isTerminal(task.task.status.state)) {
      throw new A2AError('UnsupportedOperation', `Task ${existing.task.id} is in a terminal state and cannot accept messages; start a new task in the same contextId`);
    }
    const to = fresh?.lease?.owner;
    const forwarded: ForwardedMessage = {
      agentId: agent.id,
      owner: ctx.principal.subject,
      message: { ...req.message, taskId: existing.task.id, contextId: existing.task.contextId },
      extensions: [...ctx.requestedExtensions],
      ...(ctx.usecases ? { usecases: [...ctx.usecases] } : {}),
      ...(req.configuration?.acceptedOutputModes ? { acceptedOutputModes: req.configuration.acceptedOutputModes } : {}),
      ...(req.metadata ? { metadata: req.metadata } : {}),
    };
    const snapshot = LiveTask.fromStored(fresh ?? { agentId: existing.agentId, owner: existing.owner, task: task.task, seq: task.seq, version: existing.version, createdAt: existing.createdAt, statusTime: 0 });
    return {
      taskId: existing.task.id,
      contextId: existing.task.contextId,
      startSeq: task.seq,
      existing: snapshot,
      start: (_obs: RunObserver) => this.d.bus.publishControl({ type: 'message', taskId: existing.task.id, forwarded, ...(to ? { to } : {}) }),
      remote: true,
    };
  }

  private async execute(run: AgentRun): Promise<void> {
    let error: unknown;
    try {
      await run.definition.execute(run);
    } catch (e) {
      error = e;
    }
    this.runs.delete(run);
    const live = this.live.get(run.taskId);
    if (live?.run === run) live.run = undefined;
    const obs = this.runOutcome.get(run);
    if (run.isCanceled) {
      // Canceled: the cancel path (here, or on the replica that took the task) wrote CANCELED, and
      // waiting callers get it from the bus.
      if (live) this.maybeEvict(live);
      return;
    }
    if (!run.hasTask) {
      // No task and no message: the agent produced nothing usable.
      if (error) this.d.log.error({ err: error, agentId: run.agentId }, 'executor failed before creating a task');
      if (!run.finished) {
        obs?.onEnd(new A2AError(error ? 'Internal' : 'InvalidAgentResponse', error ? FAILED_SAFE_MESSAGE : 'The agent produced no response'));
      }
      return;
    }
    if (live && !isTerminal(live.task.status.state) && !(isInterrupted(live.task.status.state) && !error)) {
      if (error) this.d.log.error({ err: error, taskId: run.taskId, agentId: run.agentId }, 'executor failed');
      this.onAgentEvent(run, { kind: 'status', state: 'TASK_STATE_FAILED', message: error ? FAILED_SAFE_MESSAGE : STOPPED_MESSAGE });
    } else if (error) {
      this.d.log.error({ err: error, taskId: run.taskId }, 'executor threw after the task ended');
    }
    if (live) {
      await live.lastCommit?.catch(() => {});
      obs?.onEnd(undefined, live.task);
      this.maybeEvict(live);
    } else {
      obs?.onEnd(new A2AError('Internal', 'The task could not be stored'));
    }
  }

  /** AgentRunHost: turns an executor's event into log events for its task. */
  onAgentEvent(run: AgentRun, ev: AgentEvent): void {
    if (run.finished) return;
    if (ev.kind === 'message' && !run.hasTask) {
      run.finished = true;
      const m: Message = {
        ...ev.message,
        messageId: ev.message.messageId ?? randomUUID(),
        role: 'ROLE_AGENT',
        contextId: run.contextId,
      };
      this.runOutcome.get(run)?.onMessage(m);
      return;
    }
    const payloads: TaskEventPayload[] = [];
    let live = this.live.get(run.taskId);
    if (!run.hasTask || !live) {
      const init = pendingCreate.get(run);
      if (!init) return;
      pendingCreate.delete(run);
      run.hasTask = true;
      const now = new Date();
      const task: Task = {
        id: run.taskId,
        contextId: run.contextId,
        status: { state: 'TASK_STATE_SUBMITTED', timestamp: now.toISOString() },
        history: [{ ...init.userMessage, taskId: run.taskId }],
      };
      live = new LiveTask({ task, agentId: run.agentId, owner: init.owner, seq: 0, version: 0, createdAt: now.getTime() });
      // Only a deduplicating service keys the task by its messageId (a unique index in the store).
      if (this.deduplicates) live.originMessageId = init.userMessage.messageId;
      live.run = run;
      // Created here: the first commit takes the lease.
      live.held = true;
      this.live.set(run.taskId, live);
      if (init.inlinePush) {
        const target = withoutKey({ ...init.inlinePush, id: init.inlinePush.id ?? randomUUID(), taskId: run.taskId }, 'tenant') as PushTarget;
        live.pushTargets.set(target.id, target);
        void this.d.store
          .putPushConfig({ agentId: run.agentId, owner: init.owner, taskId: run.taskId, config: tagForStorage(target, init.pushBodyVersion), createdAt: now.getTime() })
          .catch((e) => this.d.log.error({ err: e }, 'storing inline push config failed'));
      }
      payloads.push({ task: structuredCloneTask(task) });
    }
    if (isTerminal(live.task.status.state)) return;
    const timestamp = new Date().toISOString();
    if (ev.kind === 'message') {
      const m: Message = { ...ev.message, messageId: ev.message.messageId ?? randomUUID(), role: 'ROLE_AGENT', contextId: run.contextId, taskId: run.taskId };
      payloads.push({ statusUpdate: { taskId: run.taskId, contextId: run.contextId, status: { state: live.task.status.state, message: m, timestamp } } });
    } else if (ev.kind === 'status') {
      const message: Message | undefined = ev.message
        ? { messageId: randomUUID(), role: 'ROLE_AGENT', parts: toParts(ev.message), contextId: run.contextId, taskId: run.taskId }
        : undefined;
      payloads.push({
        statusUpdate: {
          taskId: run.taskId,
          contextId: run.contextId,
          status: { state: ev.state, ...(message ? { message } : {}), timestamp },
          ...(ev.metadata ? { metadata: ev.metadata } : {}),
        },
      });
      if (isTerminal(ev.state)) run.finished = true;
    } else {
      payloads.push({
        artifactUpdate: {
          taskId: run.taskId,
          contextId: run.contextId,
          artifact: { ...ev.artifact, artifactId: ev.artifact.artifactId ?? randomUUID() },
          ...(ev.append !== undefined ? { append: ev.append } : {}),
          ...(ev.lastChunk !== undefined ? { lastChunk: ev.lastChunk } : {}),
          ...(ev.metadata ? { metadata: ev.metadata } : {}),
        },
      });
    }
    const obs = this.runOutcome.get(run);
    const target = live;
    this.append(target, payloads).then(
      () => obs?.onCommitted(),
      (e) => this.onCommitFailed(run, target, e),
    );
  }

  /**
   * A commit of a run's events failed: the run stops (nothing more of it can be stored), once per
   * run, and whoever waits on it gets an answer that never hides a stored task (issue 19 C1).
   */
  private onCommitFailed(run: AgentRun, live: LiveTask, e: unknown): void {
    if (this.commitFailed.has(run)) return;
    this.commitFailed.add(run);
    run.finished = true;
    run.cancel();
    const obs = this.runOutcome.get(run);
    if (e instanceof ConcurrentUpdateError && !live.committed && live.originMessageId) {
      // Not stored: another request with the same messageId created its task first.
      void this.d.store.findTaskByMessageId(live.agentId, live.owner, live.originMessageId).then(
        (s) => (s ? obs?.onDuplicate?.(s.task) : obs?.onEnd(new A2AError('Internal', 'The task could not be stored'))),
        (err) => obs?.onEnd(storeFailure(err)),
      );
      return;
    }
    if (this.d.cluster && e instanceof ConcurrentUpdateError) {
      // Lease lost: another replica took the task (a cancel there, or recovery after this one
      // stalled past its lease). Waiting callers get the task's end from the bus.
      this.d.log.warn({ taskId: run.taskId, why: 'lease lost' }, 'task taken over by another replica; stopping its executor here');
      return;
    }
    const unavailable = e instanceof StoreUnavailableError || toA2AError(e).kind === 'Unavailable';
    this.d.log.error({ err: e, taskId: run.taskId, why: unavailable ? 'storage unavailable' : 'commit refused' }, 'commit failed; stopping the executor');
    if (!live.durable) {
      // Nothing of the task reached the store: nothing was acknowledged, a retry is safe.
      obs?.onEnd(storeFailure(e));
      return;
    }
    // The task is stored and goes on (recovered by rule below): the caller gets it as it stands,
    // never "retry" — a retry would start the work a second time.
    obs?.onEnd(undefined, live.durable);
    if (this.d.cluster) this.settler?.settle({ agentId: live.agentId, taskId: live.task.id });
  }

  /**
   * Assigns seqs and applies events to the live projection at once; the durable commit and the
   * publish follow. Events appended in the same tick (an executor's synchronous artifact + complete)
   * share one commit, so the task row is written once for them.
   */
  private append(live: LiveTask, payloads: TaskEventPayload[]): Promise<TaskEventRecord[]> {
    const now = Date.now();
    const records: TaskEventRecord[] = [];
    for (const event of payloads) {
      live.task = applyEvent(live.task, event);
      const rec: TaskEventRecord = { taskId: live.task.id, seq: ++live.seq, event, createdAt: now };
      records.push(rec);
      live.unflushed.push(rec);
    }
    if (!live.flush) {
      live.pending++;
      live.flush = new Promise<void>((resolve) => queueMicrotask(resolve)).then(() => this.flush(live));
      live.lastCommit = live.flush;
    }
    return live.flush.then(() => records);
  }

  private async flush(live: LiveTask): Promise<void> {
    const records = live.unflushed;
    live.unflushed = [];
    live.flush = undefined;
    const outbox: NewOutboxEntry[] = [];
    if (live.pushTargets.size) {
      for (const rec of records) {
        if (!isStreamEvent(rec.event)) continue;
        for (const t of live.pushTargets.values()) outbox.push({ taskId: live.task.id, configId: t.id, seq: rec.seq, payload: rec.event });
      }
    }
    const expectedVersion = live.version++;
    const cluster = this.d.cluster;
    const task = structuredCloneTask(live.task);
    try {
      await this.d.committer.commit({
        agentId: live.agentId,
        owner: live.owner,
        task,
        expectedVersion,
        seq: records[records.length - 1].seq,
        events: records,
        outbox,
        createdAt: live.createdAt,
        // Every commit by the replica holding the task extends its lease for free.
        ...(cluster ? { lease: { owner: cluster.replicaId, expiresAt: Date.now() + cluster.leaseTtlMs } } : {}),
        ...(expectedVersion === 0 && live.originMessageId !== undefined ? { originMessageId: live.originMessageId } : {}),
      });
      live.committed = true;
      live.durable = task;
    } catch (e) {
      // The live copy no longer matches the store: drop it so the next access reloads the truth.
      this.live.delete(live.task.id);
      throw e;
    } finally {
      live.pending--;
    }
    this.d.bus.publish(records);
    if (outbox.length) this.d.onOutbox?.();
    this.maybeEvict(live);
  }

  /** Counts a stream against the per-task cap; the returned function releases it (once). */
  private admitStream(taskId: string): () => void {
    const n = this.openStreams.get(taskId) ?? 0;
    if (n >= this.d.limits.maxConcurrentStreamsPerTask) {
      throw new A2AError('TooManyStreams', `Task ${taskId} already has ${n} open streams; close one or poll with GetTask`);
    }
    this.openStreams.set(taskId, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.openStreams.get(taskId) ?? 1) - 1;
      if (left <= 0) this.openStreams.delete(taskId);
      else this.openStreams.set(taskId, left);
    };
  }

  private maybeEvict(live: LiveTask): void {
    if (live.pending === 0 && !live.run && this.live.get(live.task.id) === live) this.live.delete(live.task.id);
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
    const page = await this.d.store.listTasks({
      agentId: ctx.agentId,
      owner: ctx.principal.subject,
      contextId: req.contextId,
      status: req.status,
      statusTimeAfter: req.statusTimestampAfter ? Date.parse(req.statusTimestampAfter) : undefined,
      pageSize,
      after: req.pageToken ? decodeCursor(req.pageToken) : undefined,
    });
    return {
      tasks: page.tasks.map((s) =>
        viewTask(s.task, { historyLength: req.historyLength, maxHistory: this.d.limits.maxHistoryLength, includeArtifacts: req.includeArtifacts ?? false }),
      ),
      nextPageToken: page.next ? encodeCursor(page.next) : '',
      pageSize,
      totalSize: page.totalSize,
    };
  }

  // ---------------------------------------------------------------- cancel

  async cancelTask(ctx: CallContext, req: CancelTaskRequest): Promise<Task> {
    const live = await this.dir.getLive(ctx, req.id);
    if (!live) throw new A2AError('TaskNotFound', `Task ${req.id} was not found`);
    if (this.d.cluster && !live.run) await this.preempt(live);
    const state = live.task.status.state;
    if (state === 'TASK_STATE_CANCELED') return this.dir.viewFull(live.task);
    if (isTerminal(state)) throw new A2AError('TaskNotCancelable', `Task ${req.id} is already ${state} and cannot be canceled`);
    const run = live.run;
    if (run) {
      run.finished = true;
      run.cancel();
    }
    await this.append(live, [
      {
        statusUpdate: {
          taskId: live.task.id,
          contextId: live.task.contextId,
          status: { state: 'TASK_STATE_CANCELED', timestamp: new Date().toISOString() },
          ...(req.metadata ? { metadata: req.metadata } : {}),
        },
      },
    ]);
    // Reaches an executor running in another process (distributed bus); a no-op in-process.
    this.d.bus.publishControl({ type: 'cancel', taskId: live.task.id });
    return this.dir.viewFull(live.task);
  }

  /**
   * Distributed mode: takes the task from whichever replica holds it, so the cancel can be written
   * here. The claim bumps the version, so the other replica's executor can no longer commit, and
   * the cancel signal on the bus stops it.
   */
  private async preempt(live: LiveTask): Promise<void> {
    const cluster = this.d.cluster!;
    while (live.claiming) await live.claiming.catch(() => false);
    await live.lastCommit?.catch(() => {});
    const now = Date.now();
    const s = await this.d.store.claimTask(live.agentId, live.task.id, cluster.replicaId, now, now + cluster.leaseTtlMs, true);
    if (!s) {
      this.dir.evictIfIdle(live);
      throw new A2AError('TaskNotFound', `Task ${live.task.id} was not found`);
    }
    live.refresh(s);
    live.held = true;
    if (isTerminal(s.task.status.state)) this.dir.evictIfIdle(live);
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
      const release = this.admitStream(req.id);
      const queue: AsyncQueue<StreamItem> = new AsyncQueue<StreamItem>(() => (unsubscribe(), release(), this.streams.delete(queue)));
      this.streams.add(queue);
      let lastSeq = resuming ? lastEventId : snapshot.seq;
      let replaying = resuming;
      const buffered: TaskEventRecord[] = [];
      const deliver = (rec: TaskEventRecord) => {
        if (rec.seq <= lastSeq) return;
        lastSeq = rec.seq;
        if (!isStreamEvent(rec.event)) return;
        queue.push({ seq: rec.seq, response: rec.event });
        if (endsStream(stateOf(rec.event))) queue.end();
      };
      const unsubscribe = this.d.bus.subscribe(req.id, (rec) => (replaying ? buffered.push(rec) : deliver(rec)), { afterSeq: lastSeq });
      if (!resuming) {
        queue.push({ seq: snapshot.seq, response: { task: this.dir.viewFull(snapshot.task) } });
      } else {
        // Lossless resume (Agentport extension): replay what the client missed from the event log.
        let after = lastEventId;
        try {
          for (;;) {
            const batch = await this.d.store.readEvents(req.id, after, 500);
            for (const rec of batch) deliver(rec);
            if (batch.length < 500) break;
            after = batch[batch.length - 1].seq;
          }
        } catch (e) {
          void queue.return();
          throw e;
        }
        replaying = false;
        for (const rec of buffered) deliver(rec);
        // Nothing was missed: open with the snapshot (it reflects exactly the client's last id) so
        // the stream starts now rather than at the next event.
        if (lastSeq === lastEventId) {
          queue.push({ seq: snapshot.seq, response: { task: this.dir.viewFull(snapshot.task) } });
          lastSeq = snapshot.seq;
        }
      }
      return queue;
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

  /**
   * Start-up recovery for a store this process owns alone: no executor survives a restart, so a
   * task left SUBMITTED or WORKING by a crash is ended FAILED with a reason, never left running.
   * (Agents that can resume are the distributed mode's concern.) Returns how many were recovered.
   */
  async recoverOrphanedTasks(): Promise<number> {
    let n = 0;
    for (;;) {
      const batch = await this.d.store.findTasksInStates(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'], 200);
      if (batch.length === 0) return n;
      for (const s of batch) {
        const live = LiveTask.fromStored(s);
        for (const c of await this.d.store.listPushConfigs(s.task.id)) live.pushTargets.set(c.config.id, c.config);
        this.live.set(s.task.id, live);
        const message: Message = {
          messageId: randomUUID(),
          role: 'ROLE_AGENT',
          parts: [{ text: 'The server restarted while this task was running; send the request again.' }],
          contextId: s.task.contextId,
          taskId: s.task.id,
        };
        await this.append(live, [
          { statusUpdate: { taskId: s.task.id, contextId: s.task.contextId, status: { state: 'TASK_STATE_FAILED', message, timestamp: new Date().toISOString() } } },
        ]);
        n++;
      }
    }
  }

  /** Stops accepting work, cancels running executors and flushes pending commits. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([this.keeper?.stop(), this.sweeper?.stop(), this.settler?.stop()]);
    const handOver: Promise<void>[] = [];
    for (const run of [...this.runs]) {
      const live = this.live.get(run.taskId);
      if (this.d.cluster && run.definition.resumable && run.hasTask && !run.finished && live?.committed) {
        // A rolling restart: another replica resumes the task as soon as this lease is released.
        run.finished = true;
        run.cancel();
        handOver.push(this.handOver(live));
        continue;
      }
      // A task cut off by shutdown must not stay WORKING: it ends FAILED with a reason.
      if (run.hasTask && !run.finished) {
        this.onAgentEvent(run, { kind: 'status', state: 'TASK_STATE_FAILED', message: 'The server stopped while this task was running; send the request again.' });
      }
      run.cancel();
    }
    await Promise.all([...this.live.values()].map((l) => l.lastCommit?.catch(() => {})));
    await this.d.committer.flush();
    await Promise.all(handOver);
    for (const q of [...this.streams]) q.end();
  }

  /** Releases the lease of a resumable task this replica stops running, once its commits are in. */
  private async handOver(live: LiveTask): Promise<void> {
    await live.lastCommit?.catch(() => {});
    try {
      await this.d.store.releaseLease(live.task.id, this.d.cluster!.replicaId);
      this.d.log.info({ taskId: live.task.id }, 'released a resumable task for another replica');
    } catch (err) {
      // Its lease expires instead; recovery then waits for the TTL.
      this.d.log.warn({ err, taskId: live.task.id }, 'could not release the lease of a resumable task');
    }
  }

  // ---------------------------------------------------------------- distributed mode

  private onControl(signal: TaskControl): void {
    const fromElsewhere = signal.from !== undefined && signal.from !== this.d.cluster?.replicaId;
    if (signal.type === 'cancel') {
      if (fromElsewhere) this.dropTask(signal.taskId, 'canceled on another replica');
      else this.live.get(signal.taskId)?.run?.cancel();
    } else if (signal.type === 'message') {
      if (this.d.cluster) void this.runForwarded(signal.forwarded);
    } else if (signal.type === 'push-configs' && fromElsewhere) {
      const live = this.live.get(signal.taskId);
      if (live) void this.reloadPushTargets(live);
    }
  }

  /** Stops the local executor of a task another replica now holds and forgets the stale copy. */
  private dropTask(taskId: string, why: string): void {
    const live = this.live.get(taskId);
    if (!live) return;
    if (live.run) {
      this.d.log.info({ taskId, why }, 'stopping the local executor');
      live.run.finished = true;
      live.run.cancel();
    }
    live.held = false;
    // Pending commits will fail on the version the other replica bumped; nothing here is current.
    if (this.live.get(taskId) === live) this.live.delete(taskId);
  }

  private async reloadPushTargets(live: LiveTask): Promise<void> {
    try {
      const configs = await this.d.store.listPushConfigs(live.task.id);
      live.pushTargets.clear();
      for (const c of configs) live.pushTargets.set(c.config.id, c.config);
    } catch (err) {
      this.d.log.warn({ err, taskId: live.task.id }, 'could not reload push configs');
    }
  }

  /** A message another replica received for a task this replica holds. */
  private async runForwarded(f: ForwardedMessage): Promise<void> {
    const agent = this.d.registry.get(f.agentId);
    if (!agent) return;
    const ctx: CallContext = {
      agentId: f.agentId,
      principal: { subject: f.owner, authenticated: true, scopes: [] },
      requestedExtensions: f.extensions,
      ...(f.usecases ? { usecases: f.usecases } : {}),
    };
    try {
      const prepared = await this.prepare(
        ctx,
        agent,
        { message: f.message, ...(f.acceptedOutputModes ? { configuration: { acceptedOutputModes: f.acceptedOutputModes } } : {}), ...(f.metadata ? { metadata: f.metadata } : {}) },
        true,
      );
      prepared.start(NO_OBSERVER);
    } catch (err) {
      this.d.log.warn({ err, taskId: f.message.taskId }, 'could not run a message forwarded by another replica');
    }
  }

  /** AgentRunHost: AgentContext.stillOwner (issue 19 C5) — fencing before an external side effect. */
  async stillOwner(run: AgentRun): Promise<boolean> {
    if (run.finished) return false;
    const live = this.live.get(run.taskId);
    // No task stored yet: nothing another replica could have taken.
    if (!live) return !run.hasTask;
    if (live.run !== run) return false;
    const cluster = this.d.cluster;
    if (!cluster) return true;
    if (!live.committed) await live.lastCommit?.catch(() => {});
    if (!live.committed || this.live.get(run.taskId) !== live || live.run !== run) return false;
    let kept: string[];
    try {
      kept = await this.d.store.renewLeases(cluster.replicaId, [run.taskId], Date.now() + cluster.leaseTtlMs);
    } catch (err) {
      // Ownership cannot be confirmed: the side effect must wait (the executor decides whether to retry).
      this.d.log.warn({ err, taskId: run.taskId }, 'could not confirm the lease of a task for its executor');
      return false;
    }
    if (kept.includes(run.taskId)) return !run.finished;
    this.dropTask(run.taskId, 'lease lost');
    return false;
  }

  /** Lease ids to renew: tasks this replica runs that exist in the store. */
  private heldTaskIds(): string[] {
    const ids: string[] = [];
    for (const run of this.runs) {
      const live = this.live.get(run.taskId);
      if (live?.run === run && live.held && live.committed) ids.push(run.taskId);
    }
    return ids;
  }

  /**
   * A task whose replica stopped renewing its lease, now claimed by this one: a resumable agent
   * runs it again from where the log stands; any other task ends FAILED with the reason.
   */
  private async recoverOrphan(s: ClaimedTask, failure = LEASE_LOST_MESSAGE): Promise<void> {
    if (this.closed) return;
    const live = LiveTask.fromStored(s);
    live.held = true;
    for (const c of await this.d.store.listPushConfigs(s.task.id)) live.pushTargets.set(c.config.id, c.config);
    this.live.set(s.task.id, live);
    const agent = this.d.registry.get(s.agentId);
    const history = s.task.history ?? [];
    const lastUser = [...history].reverse().find((m) => m.role === 'ROLE_USER');
    if (agent?.definition.resumable && lastUser) {
      this.d.log.warn({ taskId: s.task.id, previous: s.previousLease?.owner ?? null }, 'resuming a task whose replica stopped');
      const run = new AgentRun(this, agent.definition, agent.id, s.task.id, s.task.contextId, lastUser, this.dir.viewFull(s.task), [], [], [], undefined, true, undefined, s.owner);
      live.run = run;
      this.runOutcome.set(run, NO_OBSERVER);
      this.runs.add(run);
      void this.execute(run);
      return;
    }
    this.d.log.warn({ taskId: s.task.id, previous: s.previousLease?.owner ?? null }, 'failing a task whose replica stopped');
    const message: Message = { messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text: failure }], contextId: s.task.contextId, taskId: s.task.id };
    await this.append(live, [
      { statusUpdate: { taskId: s.task.id, contextId: s.task.contextId, status: { state: 'TASK_STATE_FAILED', message, timestamp: new Date().toISOString() } } },
    ]);
  }

  // ---------------------------------------------------------------- helpers

  private async checkWebhook(url: string): Promise<void> {
    if (!this.d.pushGuard) return;
    try {
      await this.d.pushGuard.check(url);
    } catch (e) {
      // A name that does not resolve *now* is no threat: every delivery re-checks and pins the
      // addresses it connects to. Refuse only what is refused for what it is or points at.
      if (e instanceof Error && (e as { retryable?: boolean }).retryable === true) return;
      // The URL's own text (not absolute, scheme, credentials) may be named; what its host is or
      // resolves to may not: telling "loopback" from "private" from "does not resolve" would map
      // the server's network for the caller. One answer, the details in the log only.
      const kind = (e as { kind?: string }).kind;
      if (kind === 'invalid-url' || kind === 'scheme' || kind === 'credentials') throw invalidParams('url', (e as Error).message);
      this.d.log.warn({ url, reason: e instanceof Error ? e.message : String(e) }, 'push notification URL refused by the outbound policy');
      throw invalidParams('url', WEBHOOK_REFUSED);
    }
  }

  private async loadReferences(ctx: CallContext, ids: string[] | undefined): Promise<Task[]> {
    if (!ids?.length) return [];
    const out: Task[] = [];
    for (const id of ids.slice(0, 32)) {
      const t = await this.dir.visibleStored(ctx, id);
      if (!t) throw new A2AError('TaskNotFound', `Referenced task ${id} was not found`);
      out.push(t.task);
    }
    return out;
  }
}

interface RunObserver {
  /** the task was not created: an earlier request with the same messageId created this one */
  onDuplicate?(task: Task): void;
  onMessage(m: Message): void;
  onCommitted(): void;
  /** `task`: the task once the run's last commit is durable */
  onEnd(err?: Error, task?: Task): void;
}

/** A commit that failed: Unavailable (503, retry) when the store is unreachable, else Internal. */
function storeFailure(err: unknown): A2AError {
  const e = toA2AError(err);
  return e.kind === 'Unavailable' ? e : new A2AError('Internal', 'The task could not be stored');
}

const NO_OBSERVER: RunObserver = { onMessage: () => {}, onCommitted: () => {}, onEnd: () => {} };

function mergeObservers(a: RunObserver | undefined, b: RunObserver): RunObserver {
  if (!a) return b;
  return {
    onMessage: (m) => (a.onMessage(m), b.onMessage(m)),
    onCommitted: () => (a.onCommitted(), b.onCommitted()),
    onEnd: (e, t) => (a.onEnd(e, t), b.onEnd(e, t)),
    onDuplicate: (t) => (a.onDuplicate?.(t), b.onDuplicate?.(t)),
  };
}

/** What a run needs to create its task lazily, on the executor's first task event. */
const pendingCreate = new WeakMap<AgentRun, { owner: string; userMessage: Message; inlinePush?: TaskPushNotificationConfig; pushBodyVersion: PushBodyVersion }>();
