/**
 * Cluster routing (distributed mode, a store shared by replicas): a task runs on the replica holding
 * its lease. This replica claims idle tasks it is asked to run, hands messages for a task held
 * elsewhere to that replica over the bus, takes a task over to cancel it, and recovers tasks whose
 * replica stopped renewing its lease. Control signals of the bus arrive here in every mode.
 */
import { callerOfStored } from '../execution/hosted-agent-calls.js';
import { contextOfTraceparent, inSpan, linkTo, SpanKind, traceparentOf, tracingOn, type Context } from '../../observability/tracing/index.js';
import { uuidv7 as randomUUID } from '../ids/uuid-v7.js';
import { isoTimestamp } from '../iso-timestamp.js';
import { A2AError } from '../../protocol/a2a/errors.js';
import { isTerminal, type Message, type SendMessageRequest, type Task } from '../../protocol/a2a/types.js';
import type { EventBus, ForwardedMessage, TaskControl } from '../../bus/event-bus.js';
import type { ClaimedTask, Store } from '../../store/store.js';
import { CallContext } from '../a2a-handler.js';
import type { AgentRegistry, RegisteredAgent } from '../agents/agent-registry.js';
import { LEASE_LOST_MESSAGE, STORAGE_UNAVAILABLE_MESSAGE } from '../execution/failure-messages.js';
import { NO_OBSERVER } from '../execution/run-observer.js';
import type { RunLogger, RunSupervisor } from '../execution/run-supervisor.js';
import type { LiveTask } from '../task-state/live-task.js';
import type { TaskDirectory } from '../task-state/task-directory.js';
import type { TaskLog } from '../task-state/task-log.js';
import type { ClusterOptions } from './cluster-options.js';
import { LeaseKeeper } from './lease-keeper.js';
import { OrphanSweeper } from './orphan-sweeper.js';
import { OutageSettler, type TaskRef } from './outage-settler.js';
import type { Metrics } from '../../observability/metrics/index.js';

export interface ClusterRouterDeps {
  registry: AgentRegistry;
  store: Store;
  bus: EventBus;
  log: RunLogger;
  /** absent: a store this process owns alone (only local control signals arrive) */
  cluster?: ClusterOptions;
  dir: TaskDirectory;
  taskLog: TaskLog;
  supervisor: RunSupervisor;
  /**
   * The front door a message another replica forwarded enters by: SendMessage's, as for a local
   * caller (with `ctx.forwarded` set and `returnImmediately`: nobody here waits for the task).
   */
  receive: (ctx: CallContext, req: SendMessageRequest) => Promise<unknown>;
  /** true once the service is shutting down: nothing more is recovered */
  closed: () => boolean;
  /** metrics on: forwarded messages and recovered orphans are counted */
  metrics?: Metrics;
}

/** A message on its way to the replica holding its task: the task as it stood, and the send. */
export interface ForwardedSend {
  task: Task;
  seq: number;
  send(): void;
}

export class ClusterRouter {
  private readonly keeper?: LeaseKeeper;
  private readonly sweeper?: OrphanSweeper;
  private readonly settler?: OutageSettler;

  constructor(private readonly d: ClusterRouterDeps) {
    d.bus.onControl((signal) => this.onControl(signal));
    if (d.cluster) {
      const runs = d.supervisor;
      this.keeper = new LeaseKeeper({ store: d.store, cluster: d.cluster, held: () => runs.heldTaskIds(), onLost: (id) => runs.dropTask(id, 'lease lost'), log: d.log });
      this.sweeper = new OrphanSweeper({ store: d.store, cluster: d.cluster, recover: (t) => this.recoverOrphan(t), log: d.log });
      this.settler = new OutageSettler({ store: d.store, cluster: d.cluster, recover: (t) => this.recoverOrphan(t, STORAGE_UNAVAILABLE_MESSAGE), log: d.log });
    }
  }

  /** Starts renewing leases and sweeping for orphaned tasks. */
  start(): void {
    this.keeper?.start();
    this.sweeper?.start();
  }

  /** One sweep for orphaned tasks now (tests, and start-up). */
  sweepOrphans(): Promise<number> {
    return this.sweeper?.sweep() ?? Promise.resolve(0);
  }

  /** A stored task whose commit failed for want of storage: recovered once the store answers again. */
  settle(ref: TaskRef): void {
    this.settler?.settle(ref);
  }

  /** Stops renewing, sweeping and settling. */
  stop(): Promise<unknown> {
    return Promise.all([this.keeper?.stop(), this.sweeper?.stop(), this.settler?.stop()]);
  }

  /**
   * Takes the lease of an idle task so this replica may run it. One claim at a time per working
   * copy; true when this replica holds the task afterwards.
   */
  async acquire(live: LiveTask): Promise<boolean> {
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

  /**
   * Takes the task from whichever replica holds it, so a cancel can be written here. The claim
   * bumps the version, so the other replica's executor can no longer commit, and the cancel signal
   * on the bus stops it.
   */
  async preempt(live: LiveTask): Promise<void> {
    const cluster = this.d.cluster!;
    while (live.claiming) await live.claiming.catch(() => false);
    await live.lastCommit?.catch(() => {});
    const now = Date.now();
    const s = await this.d.store.claimTask(live.agentId, live.task.id, cluster.replicaId, now, now + cluster.leaseTtlMs, true);
    if (!s) {
      this.d.dir.live.evict(live);
      throw new A2AError('TaskNotFound', `Task ${live.task.id} was not found`);
    }
    live.refresh(s);
    live.held = true;
    if (isTerminal(s.task.status.state)) this.d.dir.live.evict(live);
  }

  /**
   * The sender's side of a message for a task another replica holds: the task as it stands (its
   * waits see only what follows) and the send that hands the message to the lease holder.
   */
  async forwardTo(ctx: CallContext, agent: RegisteredAgent, req: SendMessageRequest, existing: LiveTask): Promise<ForwardedSend> {
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
      ...(tracingOn() ? { trace: { parent: traceparentOf(ctx.trace), task: fresh?.traceParent } } : {}),
    };
    return {
      task: task.task,
      seq: task.seq,
      send: () => {
        this.d.metrics?.forwardedMessage('sent');
        this.d.bus.publishControl({ type: 'message', taskId: existing.task.id, forwarded, ...(to ? { to } : {}) });
      },
    };
  }

  private onControl(signal: TaskControl): void {
    const fromElsewhere = signal.from !== undefined && signal.from !== this.d.cluster?.replicaId;
    if (signal.type === 'cancel') {
      if (fromElsewhere) this.d.supervisor.dropTask(signal.taskId, 'canceled on another replica');
      else this.d.dir.live.get(signal.taskId)?.run?.cancel();
    } else if (signal.type === 'message') {
      if (this.d.cluster) {
        this.d.metrics?.forwardedMessage('received');
        void this.runForwarded(signal.forwarded);
      }
    } else if (signal.type === 'push-configs' && fromElsewhere) {
      const live = this.d.dir.live.get(signal.taskId);
      if (live) void this.reloadPushTargets(live);
    }
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
    const ctx = CallContext.of(f.agentId, { subject: f.owner, authenticated: true, scopes: [] }, { usecases: f.usecases, forwarded: true }, f.extensions);
    const req: SendMessageRequest = {
      message: f.message,
      configuration: { returnImmediately: true, ...(f.acceptedOutputModes ? { acceptedOutputModes: f.acceptedOutputModes } : {}) },
      ...(f.metadata ? { metadata: f.metadata } : {}),
    };
    try {
      if (!f.trace) await this.d.receive(ctx, req);
      else
        await inForwardedTrace(f.trace, f.message.taskId, async (trace) => {
          // The run starts under the forwarded span.
          ctx.traced(trace);
          await this.d.receive(ctx, req);
        });
    } catch (err) {
      this.d.log.warn({ err, taskId: f.message.taskId }, 'could not run a message forwarded by another replica');
    }
  }

  /** Releases the lease of a resumable task this replica stops running, once its commits are in. */
  async handOver(live: LiveTask): Promise<void> {
    await live.lastCommit?.catch(() => {});
    try {
      await this.d.store.releaseLease(live.task.id, this.d.cluster!.replicaId);
      this.d.log.info({ taskId: live.task.id }, 'released a resumable task for another replica');
    } catch (err) {
      // Its lease expires instead; recovery then waits for the TTL.
      this.d.log.warn({ err, taskId: live.task.id }, 'could not release the lease of a resumable task');
    }
  }

  /**
   * A task whose replica stopped renewing its lease, now claimed by this one: a resumable agent
   * runs it again from where the log stands; any other task ends FAILED with the reason.
   */
  async recoverOrphan(s: ClaimedTask, failure = LEASE_LOST_MESSAGE): Promise<void> {
    if (this.d.closed()) return;
    this.d.metrics?.orphanRecovered();
    const live = await this.d.dir.live.adoptStored(s, (l) => (l.held = true));
    const agent = this.d.registry.get(s.agentId);
    const history = s.task.history ?? [];
    const lastUser = [...history].reverse().find((m) => m.role === 'ROLE_USER');
    if (agent?.definition.resumable && lastUser) {
      this.d.log.warn({ taskId: s.task.id, previous: s.previousLease?.owner ?? null }, 'resuming a task whose replica stopped');
      const runs = this.d.supervisor;
      const run = runs.newRun({
        definition: agent.definition,
        agentId: agent.id,
        taskId: s.task.id,
        contextId: s.task.contextId,
        message: lastUser,
        task: this.d.dir.viewFull(s.task),
        resumed: true,
        owner: s.owner,
        ...(callerOf(s) ? { caller: callerOf(s)! } : {}),
      });
      live.run = run;
      runs.observe(run, NO_OBSERVER);
      runs.start(run);
      return;
    }
    this.d.log.warn({ taskId: s.task.id, previous: s.previousLease?.owner ?? null }, 'failing a task whose replica stopped');
    const message: Message = { messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text: failure }], contextId: s.task.contextId, taskId: s.task.id };
    await this.d.taskLog.append(live, [{ statusUpdate: { taskId: s.task.id, contextId: s.task.contextId, status: { state: 'TASK_STATE_FAILED', message, timestamp: isoTimestamp() } } }]);
  }
}

/**
 * A forwarded follow-up runs in the forwarding replica's trace (its request is this work's cause)
 * and links to the span its task was created in.
 */
function inForwardedTrace(trace: NonNullable<ForwardedMessage['trace']>, taskId: string | undefined, run: (trace: Context | undefined) => Promise<void>): Promise<void> {
  const parent = contextOfTraceparent(trace.parent);
  const task = linkTo(trace.task);
  return inSpan('task.forwarded', { kind: SpanKind.CONSUMER, ...(parent ? { parent } : {}), ...(task ? { links: [task] } : {}), attributes: taskId ? { 'agentport.task.id': taskId } : {} }, run);
}

/** The caller stored with a task (resumable agents), for its resumed run. */
function callerOf(s: { caller?: string; owner: string }) {
  return callerOfStored(s.caller, s.owner);
}
