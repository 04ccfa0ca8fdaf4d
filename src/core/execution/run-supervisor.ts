/**
 * The run supervisor: starts an agent's executor for a task, turns what it emits into log events
 * (creating the task on its first task event), and ends the run — FAILED when the executor threw
 * or stopped without finishing, an answer to whoever waits when a commit of its events failed.
 */
import { TransientMap } from '../../memory/transient-map.js';
import { contextWith, endFailed, startSpan, tracingOn, type Context } from '../../observability/tracing/index.js';
import { addReported, type TaskUsageState } from '../usage/task-usage.js';
import { addReport } from '../usage/usage-draft.js';
import type { UsageReport } from '../agents/agent-definition.js';
import { uuidv7 as randomUUID } from '../ids/uuid-v7.js';
import { toParts, type AgentEvent } from '../agents/agent-definition.js';
import { A2AError, toA2AError } from '../../protocol/a2a/errors.js';
import { isInterrupted, isTerminal, type Message, type Task, type TaskArtifactUpdateEvent, type TaskPushNotificationConfig, type TaskState, type TaskStatusUpdateEvent } from '../../protocol/a2a/types.js';
import { ConcurrentUpdateError, StoreUnavailableError, type Store, type TaskEventPayload } from '../../store/store.js';
import type { LeaseTerms } from '../task-state/lease-terms.js';
import { tagForStorage, type PushBodyVersion } from '../push/push-body-version.js';
import { LiveTask, type PushTarget, type TaskRun } from '../task-state/live-task.js';
import type { LiveTasks } from '../task-state/live-tasks.js';
import type { TaskLog } from '../task-state/task-log.js';
import { withoutKey } from './without-key.js';
import { copyWith } from '../copy-with.js';
import { isoTimestamp } from '../iso-timestamp.js';
import { AgentRun, RunArtifactEvent, type AgentRunHost, type AgentRunOptions } from './agent-run.js';
import { HostedAgentCalls, type HostedAgentCallsDeps } from './hosted-agent-calls.js';
import type { HostedAgents } from '../agents/agent-definition.js';
import { FAILED_SAFE_MESSAGE, STOPPED_MESSAGE } from './failure-messages.js';
import { mergeObservers, type RunObserver } from './run-observer.js';

export interface RunLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** What a run needs to create its task lazily, on the executor's first task event. */
export interface PendingCreate {
  owner: string;
  userMessage: Message;
  inlinePush?: TaskPushNotificationConfig;
  pushBodyVersion: PushBodyVersion;
  /** the creating call's usage draft, and LLM usage the run reports before its task exists */
  usage?: TaskUsageState;
  /** W3C traceparent of the creating call's span (tracing on) */
  traceParent?: string | undefined;
  /** the caller, stored with the task so a resumed run acts for it (resumable agents only) */
  caller?: string | undefined;
  /**
   * `returnImmediately`: the task is created and committed as the run starts, not on the executor's
   * first event, so the caller is answered at once however long the agent takes to speak.
   */
  createNow?: boolean;
}

export interface RunSupervisorDeps {
  /** tasks with activity in this process */
  live: LiveTasks;
  store: Store;
  log: RunLogger;
  taskLog: TaskLog;
  /** whether a created task is keyed by its messageId (SendMessage idempotency) */
  deduplicates: boolean;
  cluster?: LeaseTerms;
  /** distributed mode: a stored task whose commit failed for want of storage, to settle later */
  settle?: (task: { agentId: string; taskId: string }) => void;
  /** AgentContext.agents: how runs reach other hosted agents as their caller */
  hostedAgents?: HostedAgentCallsDeps;
}

/**
 * Who waits on a run, kept on the run itself (as edge/body.ts keeps a request's body policy), so it
 * lives exactly as long as the run. Not a WeakMap: a scavenge treats every value slot of an old
 * WeakMap's table as a root until the entry is cleared, which happens only once the key is found
 * dead, so each request's observer — and, through its closures, the blocking wait, the call's
 * context and the task — survived one young-generation collection (~4 KB a request, most of the
 * ~1.5 MB each scavenge copied at 8 connections; ADR 0056).
 */
const [observerOf, setObserver] = fieldOnRun<TaskRun, RunObserver>('agentport.runObserver');

/** What a run's end waits on when its task has no commit under way: settled, one for every run. */
const SETTLED: Promise<void> = Promise.resolve();

/**
 * The task a run creates with its first event, kept on the run for the observer's reasons above;
 * a WeakMap insertion also cost ~1.1 k instructions a SendMessage (callgrind, issue 26).
 */
const [pendingCreateOf, setPendingCreate] = fieldOnRun<AgentRun, PendingCreate>('agentport.pendingCreate');

/** A getter and a setter of one symbol-keyed field of a run (off its public type). */
function fieldOnRun<R extends object, T>(description: string): [(run: R) => T | undefined, (run: R, value: T | undefined) => void] {
  const key = Symbol(description);
  return [(run) => (run as { [key]?: T })[key], (run, value) => void ((run as { [key]?: T })[key] = value)];
}

export class RunSupervisor implements AgentRunHost {
  private readonly runs = new TransientMap<AgentRun>();
  /** runs whose commit failure was handled (later failures of the same run are its echoes) */
  private readonly commitFailed = new WeakSet<AgentRun>();
  /** runs whose task was created before the executor's first event (`createNow`), until that event */
  private readonly createdAhead = new WeakSet<AgentRun>();

  constructor(private readonly d: RunSupervisorDeps) {}

  /** A run of an executor, supervised here. */
  newRun(o: Omit<AgentRunOptions, 'host'>): AgentRun {
    // Neither spread into a new object with the host (its fifteen fields cost ~3 k instructions a
    // SendMessage, callgrind) nor given the host as a field added to the caller's literal (a
    // property array a run): the host is the constructor's second argument (issue 26).
    return new AgentRun(o, this);
  }

  /** Who waits on the run; `create`: the task does not exist yet, the run creates it. */
  observe(run: AgentRun, obs: RunObserver, create?: PendingCreate): void {
    setObserver(run, obs);
    if (create) {
      setPendingCreate(run, create);
    }
  }

  /** Starts the executor. */
  start(run: AgentRun): void {
    this.runs.set(run.serial, run);
    if (pendingCreateOf(run)?.createNow) this.createAhead(run);
    this.execute(run);
  }

  /** Commits the SUBMITTED task of a run before its executor emits anything (issue 25 C1b). */
  private createAhead(run: AgentRun): void {
    const init = pendingCreateOf(run)!;
    setPendingCreate(run, undefined);
    run.hasTask = true;
    this.createdAhead.add(run);
    const live = this.createTask(run, init);
    const obs = observerOf(run);
    this.d.taskLog.append(live, [{ task: live.task }], run.trace).then(
      () => obs?.onCommitted(),
      (e) => this.onCommitFailed(run, live, e),
    );
  }

  /** At most one executor per task: a message to a task whose executor is still live goes to it. */
  deliver(existing: LiveTask, run: TaskRun, userMessage: Message, obs: RunObserver, trace?: Context): void {
    run.deliver(userMessage);
    setObserver(run, mergeObservers(observerOf(run), obs));
    // The message is durable once this commit is: a returnImmediately caller is answered then,
    // even when the executor emits nothing for a while (it need not read the message at once).
    void this.d.taskLog.append(existing, [{ userMessage }], trace).then(
      () => obs.onCommitted(),
      (e) => this.d.log.error({ err: e, taskId: existing.task.id }, 'commit failed'),
    );
  }

  /** The runs live now (shutdown walks them). */
  current(): AgentRun[] {
    return [...this.runs.values()];
  }

  /**
   * Runs the executor and, when it returns or throws, settles the run. Chained, not awaited in an
   * async frame: an executor that waits for hours (an idle stream's) keeps no frame of ours alive.
   */
  private execute(run: AgentRun): void {
    let running: Promise<unknown>;
    // The executor, its commits and its outbound calls hang under the run's span, which ends in the
    // run's own reactions below: no promise of its own, one microtask turn fewer a traced request
    // (docs/benchmarks.md, *trace32*).
    const span = tracingOn()
      ? startSpan(`invoke_agent ${run.agentId}`, { parent: run.trace, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': run.agentId, 'agentport.task.id': run.taskId } })
      : undefined;
    try {
      if (span) run.trace = contextWith(span, run.trace);
      const returned = run.definition.execute(run);
      // An executor that returned nothing (the echo's, any synchronous one) is waited on through the
      // one settled promise every run shares: the same turn as a promise made of nothing, one
      // promise fewer a run (issue 26, docs/benchmarks.md tail36). Anything else is adopted as before.
      running = returned === undefined ? SETTLED : Promise.resolve(returned);
    } catch (e) {
      running = Promise.reject(e);
    }
    void running.then(
      () => {
        span?.end();
        this.settle(run, undefined);
      },
      (e: unknown) => {
        if (span) endFailed(span, e);
        this.settle(run, e);
      },
    );
  }

  /**
   * Not async: its frame lived until the run's last commit, and its promise was adopted by the
   * executor's reaction that nothing reads (issue 26: ~450 B a run).
   */
  private settle(run: AgentRun, error: unknown): void {
    this.runs.delete(run.serial);
    const live = this.d.live.get(run.taskId);
    const own = live?.run === run;
    const obs = observerOf(run);
    if (run.isCanceled) {
      // Canceled: the cancel path (here, or on the replica that took the task) wrote CANCELED, and
      // waiting callers get it from the bus.
      if (live) {
        if (own) live.run = undefined;
        this.d.live.evict(live);
      }
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
      // Written while the copy is still the run's (onAgentEvent writes only to its run's copy).
      this.onAgentEvent(run, { kind: 'status', state: 'TASK_STATE_FAILED', message: error ? FAILED_SAFE_MESSAGE : STOPPED_MESSAGE });
    } else if (error) {
      this.d.log.error({ err: error, taskId: run.taskId }, 'executor threw after the task ended');
    }
    if (own) live.run = undefined;
    if (live) {
      // One reaction for either outcome (the commit's failure is answered where it is seen,
      // onCommitFailed): no second promise and turn per run, as `.catch(() => {})` took (issue 26).
      const after = (): void => this.ended(live, obs);
      void (live.lastCommit ?? SETTLED).then(after, after);
    } else {
      obs?.onEnd(new A2AError('Internal', 'The task could not be stored'));
    }
  }

  /** A run that had a task ended, and its last commit has settled: its waiting caller is answered. */
  private ended(live: LiveTask, obs: RunObserver | undefined): void {
    // A keyed task whose first commit was refused was never stored (another request with the same
    // messageId created its task first): the commit's failure answers, with that stored task.
    if (!live.committed && live.originMessageId !== undefined) return;
    obs?.onEnd(undefined, live.task);
    this.d.live.evict(live);
  }

  /** AgentRunHost: turns an executor's event into log events for its task. */
  onAgentEvent(run: AgentRun, ev: AgentEvent): void {
    if (run.finished) return;
    // A direct message as the first word of an executor whose task was made for it ahead would have
    // been the call's whole answer: it completes that task instead of leaving it SUBMITTED.
    const answersAhead = this.createdAhead.delete(run) && ev.kind === 'message';
    if (ev.kind === 'message' && !run.hasTask) {
      run.finished = true;
      // No task will carry this run's usage: the call's own record does.
      const usage = pendingCreateOf(run)?.usage;
      if (usage?.draft) {
        usage.draft.answeredWithoutTask = true;
        // The id reserved for a task that was never created names nothing.
        usage.draft.taskId = undefined;
        usage.draft.reported = usage.pending;
        usage.pending = undefined;
      }
      const m: Message = copyWith(ev.message, { messageId: ev.message.messageId ?? randomUUID(), role: 'ROLE_AGENT' as const, contextId: run.contextId });
      observerOf(run)?.onMessage(m);
      return;
    }
    let live = this.d.live.get(run.taskId);
    // The event that creates the task, when this one does (its array is made at its size: an empty
    // one grown by push took a 17-slot backing store for one or two events).
    let created: TaskEventPayload | undefined;
    if (!run.hasTask || !live) {
      const init = pendingCreateOf(run);
      if (!init) return;
      setPendingCreate(run, undefined);
      run.hasTask = true;
      live = this.createTask(run, init);
      // The event takes the new task object itself (createTask): appending it gives the working copy
      // a copy of its own (applyEvent), so a copy here would be a third one on the first commit.
      created = { task: live.task };
    }
    // The fence in this process (ADR 0070): a run writes only to the working copy it runs on. A copy
    // that another run took over (this replica claimed the task back and resumed it) is not its
    // own, though the replica's lease and the copy's version would let its commits through.
    else if (live.run !== run) return;
    if (isTerminal(live.task.status.state)) return;
    const event = toLogEvent(run, ev, live.task, answersAhead ? 'TASK_STATE_COMPLETED' : undefined);
    const payloads: TaskEventPayload[] = created ? [created, event] : [event];
    if (answersAhead || (ev.kind === 'status' && isTerminal(ev.state))) run.finished = true;
    const obs = observerOf(run);
    const target = live;
    const commit = this.d.taskLog.append(target, payloads, run.trace);
    // Events of one tick share one commit: the reaction the first of them put on it answers for all
    // (an observer's onCommitted and onCommitFailed do nothing more when called again for the same
    // commit), where each event made its own two closures and promise.
    if (commit === run.awaitedCommit && obs === run.awaitedBy) return;
    run.awaitedCommit = commit;
    run.awaitedBy = obs;
    commit.then(
      () => obs?.onCommitted(),
      (e) => this.onCommitFailed(run, target, e),
    );
  }

  /**
   * The working copy of the task a run creates with its first task event (SUBMITTED, the user's
   * message). Its `task` is handed to that event as it is: appending the event replaces the working
   * copy's task with a copy (applyEvent), so the object made here is the event's alone.
   */
  private createTask(run: AgentRun, init: PendingCreate): LiveTask {
    const now = Date.now();
    const task: Task = {
      id: run.taskId,
      contextId: run.contextId,
      status: { state: 'TASK_STATE_SUBMITTED', timestamp: isoTimestamp(now) },
      history: [copyWith(init.userMessage, { taskId: run.taskId })],
    };
    const live = new LiveTask({ task, agentId: run.agentId, owner: init.owner, seq: 0, version: 0, createdAt: now });
    if (init.usage) Object.assign(live.usage, init.usage);
    // Only a deduplicating service keys the task by its messageId (a unique index in the store).
    if (this.d.deduplicates) live.originMessageId = init.userMessage.messageId;
    if (init.traceParent) live.traceParent = init.traceParent;
    if (init.caller) live.caller = init.caller;
    live.run = run;
    // Created here: the first commit takes the lease.
    live.held = true;
    this.d.live.adopt(live);
    if (init.inlinePush) {
      const target = withoutKey({ ...init.inlinePush, id: init.inlinePush.id ?? randomUUID(), taskId: run.taskId }, 'tenant') as PushTarget;
      live.pushTargets.set(target.id, target);
      // The first commit (its outbox rows name this config) waits for it: a worker that claimed a
      // row before the config was stored would drop the row as if the config had been deleted.
      live.commitAfter = this.d.store.putPushConfig({ agentId: run.agentId, owner: init.owner, taskId: run.taskId, config: tagForStorage(target, init.pushBodyVersion), createdAt: now }).catch((e: unknown) => {
        this.d.log.error({ err: e, taskId: run.taskId }, 'storing inline push config failed; the task is not stored');
        throw e;
      });
    }
    return live;
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
    const obs = observerOf(run);
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
    if (this.d.cluster) this.d.settle?.({ agentId: live.agentId, taskId: live.task.id });
  }

  /** AgentRunHost: AgentContext.agents, for a run that knows its caller */
  hostedAgents(run: AgentRun): HostedAgents | undefined {
    const deps = this.d.hostedAgents;
    if (!deps || !run.caller) return undefined;
    return new HostedAgentCalls(deps, run.caller, { agentId: run.agentId, taskId: run.taskId, trace: () => run.trace });
  }

  /** AgentRunHost: AgentContext.reportUsage — LLM usage, written with the task's next commit. */
  onUsage(run: AgentRun, u: UsageReport): void {
    const live = this.d.live.get(run.taskId);
    if (run.hasTask && live?.run === run) {
      addReported(live.usage, u);
      return;
    }
    const init = pendingCreateOf(run);
    if (!init) return;
    const draft = init.usage?.draft;
    // Reported after the run answered with a message: still the call's, until its answer is out.
    if (draft?.answeredWithoutTask) draft.reported = addReport(draft.reported, u);
    else addReported((init.usage ??= {}), u);
  }

  /** AgentRunHost: AgentContext.stillOwner (issue 19 C5) — fencing before an external side effect. */
  async stillOwner(run: AgentRun): Promise<boolean> {
    if (run.finished) return false;
    const live = this.d.live.get(run.taskId);
    // No task stored yet: nothing another replica could have taken.
    if (!live) return !run.hasTask;
    if (live.run !== run) return false;
    const cluster = this.d.cluster;
    if (!cluster) return true;
    if (!live.committed) await live.lastCommit?.catch(() => {});
    if (!live.committed || this.d.live.get(run.taskId) !== live || live.run !== run) return false;
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

  /** Stops the local executor of a task another replica now holds and forgets the stale copy. */
  dropTask(taskId: string, why: string): void {
    const live = this.d.live.get(taskId);
    if (!live) return;
    if (live.run) {
      this.d.log.info({ taskId, why }, 'stopping the local executor');
      live.run.finished = true;
      live.run.cancel();
    }
    live.held = false;
    // Pending commits will fail on the version the other replica bumped; nothing here is current.
    this.d.live.drop(live);
  }

  /** Lease ids to renew: tasks this replica runs that exist in the store. */
  /** executors running in this process (the tasks-running gauge) */
  get running(): number {
    return this.runs.size;
  }

  heldTaskIds(): string[] {
    const ids: string[] = [];
    for (const run of this.runs.values()) {
      const live = this.d.live.get(run.taskId);
      if (live?.run === run && live.held && live.committed) ids.push(run.taskId);
    }
    return ids;
  }
}

/**
 * An executor's event as the log event of its task (the task exists and is not terminal); a message
 * keeps the task's state unless `messageState` names the state it brings.
 */
function toLogEvent(run: AgentRun, ev: AgentEvent, task: Task, messageState?: TaskState): TaskEventPayload {
  if (ev.kind === 'message') {
    const timestamp = isoTimestamp();
    const m: Message = copyWith(ev.message, { messageId: ev.message.messageId ?? randomUUID(), role: 'ROLE_AGENT' as const, contextId: run.contextId, taskId: run.taskId });
    return { statusUpdate: { taskId: run.taskId, contextId: run.contextId, status: { state: messageState ?? task.status.state, message: m, timestamp } } };
  }
  if (ev.kind === 'status') {
    const timestamp = isoTimestamp();
    const message: Message | undefined = ev.message ? { messageId: randomUUID(), role: 'ROLE_AGENT', parts: toParts(ev.message), contextId: run.contextId, taskId: run.taskId } : undefined;
    // Fields in the wire's order (the log stores the event as JSON); optional ones assigned, not
    // spread: each conditional spread was a CopyDataProperties call (issue 26).
    const statusUpdate: TaskStatusUpdateEvent = { taskId: run.taskId, contextId: run.contextId, status: message ? { state: ev.state, message, timestamp } : { state: ev.state, timestamp } };
    if (ev.metadata) statusUpdate.metadata = ev.metadata;
    return { statusUpdate };
  }
  const artifact = ev instanceof RunArtifactEvent ? ev.artifact : copyWith(ev.artifact, { artifactId: ev.artifact.artifactId ?? randomUUID() });
  const artifactUpdate: TaskArtifactUpdateEvent = { taskId: run.taskId, contextId: run.contextId, artifact };
  if (ev.append !== undefined) artifactUpdate.append = ev.append;
  if (ev.lastChunk !== undefined) artifactUpdate.lastChunk = ev.lastChunk;
  if (ev.metadata) artifactUpdate.metadata = ev.metadata;
  return { artifactUpdate };
}

/** A commit that failed: Unavailable (503, retry) when the store is unreachable, else Internal. */
function storeFailure(err: unknown): A2AError {
  const e = toA2AError(err);
  return e.kind === 'Unavailable' ? e : new A2AError('Internal', 'The task could not be stored');
}
