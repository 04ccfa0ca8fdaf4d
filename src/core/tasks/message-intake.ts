/**
 * SendMessage before anything runs: validates the message, finds the task it continues (or names
 * the one it creates), answers a retried request with the task it already created, and returns a
 * starter that delivers the message to the task's live executor, starts a run, or forwards it.
 */
import { callerOfStored, runCallerOf, storedCaller } from '../execution/hosted-agent-calls.js';
import { traceparentOf } from '../../observability/tracing/index.js';
import { uuidv7 as randomUUID } from '../ids/uuid-v7.js';
import { type StartingMessage, StartingMessages } from './starting-messages.js';
import { A2AError, invalidParams } from '../../protocol/a2a/errors.js';
import { isTerminal, type Message, type SendMessageRequest, type Task } from '../../protocol/a2a/types.js';
import type { Store, StoredTask } from '../../store/store.js';
import type { CallContext } from '../a2a-handler.js';
import type { RegisteredAgent } from '../agents/agent-registry.js';
import type { ClusterOptions } from '../cluster/cluster-options.js';
import type { ClusterRouter } from '../cluster/cluster-router.js';
import type { RunObserver } from '../execution/run-observer.js';
import type { PendingCreate, RunLogger, RunSupervisor } from '../execution/run-supervisor.js';
import { pushBodyVersionOfCall } from '../push/push-body-version.js';
import { chosenTaskIdOf } from './chosen-task-id.js';
import { checkInputModes } from './input-modes.js';
import type { LiveTask } from '../task-state/live-task.js';
import type { TaskDirectory } from '../task-state/task-directory.js';
import type { TaskLog } from '../task-state/task-log.js';
import type { PreparedSend } from './prepared-send.js';
import { withoutKey } from '../execution/without-key.js';
import { copyWith } from '../copy-with.js';

/**
 * A run's empty list of strings, shared (AgentContext types activatedExtensions and
 * acceptedOutputModes readonly). Frozen so that no run can change another's.
 */
const NO_STRINGS: readonly string[] = Object.freeze([]);

/** C4 (issue 19): the caller went away while its request was queued; nothing starts. */
export function clientGone(): A2AError {
  return new A2AError('Unavailable', 'The client closed the connection before the request started');
}

export interface MessageIntakeDeps {
  store: Store;
  dir: TaskDirectory;
  taskLog: TaskLog;
  supervisor: RunSupervisor;
  /** the cluster as the intake needs it: take a task's lease, or forward its message to the holder */
  router: Pick<ClusterRouter, 'acquire' | 'forwardTo'>;
  log: RunLogger;
  cluster?: ClusterOptions;
  deduplicates: boolean;
  checkWebhook: (url: string) => Promise<void>;
  closed: () => boolean;
}

export class MessageIntake {
  /** Task-creating messages whose run has not committed its first event yet (issue 25 C1a). */
  private readonly starting = new StartingMessages();

  constructor(private readonly d: MessageIntakeDeps) {}

  /**
   * A retry of a task-creating message whose first run has produced nothing yet: waits on that run's task.
   * (Every binding refuses a message without a string messageId before the service: protocol/a2a/validate.ts.)
   */
  awaitStarting(ctx: CallContext, req: SendMessageRequest): PreparedSend | undefined {
    if (req.message.taskId || ctx.messageIdMinted) return undefined;
    const first = this.starting.get(ctx.agentId, ctx.principal.subject, req.message.messageId);
    return first && { taskId: first.taskId, contextId: first.contextId, startSeq: 0, start: () => {}, remote: true };
  }

  /**
   * SendMessage idempotency (issue 19 C1): the task an earlier request of this caller created with
   * the same messageId, as it stands. Only task-creating messages are keyed; the key lives as long as
   * the task. C4: a caller that went away while its request was queued starts nothing.
   * (TaskService.sendMessage takes these steps in its own frame: see storedRetry.)
   */
  async retriedTask(ctx: CallContext, req: SendMessageRequest): Promise<{ task: Task; seq: number } | undefined> {
    if (req.message.taskId) return undefined;
    const s = await this.storedRetry(ctx, req);
    if (await ctx.clientGone?.()) throw clientGone();
    return this.asItStands(s);
  }

  /**
   * retriedTask's lookup: the stored task of an earlier request with this messageId, at hand when
   * the store answers without waiting (SQLite's findTaskByMessageIdAtHand), else its promise;
   * undefined when no lookup is made (not deduplicated, or the id was minted here). For a message
   * that names no task. At hand, a blocking send waits only for the client check (issue 26: an
   * async frame, its promise and an await fewer a SendMessage).
   */
  storedRetry(ctx: CallContext, req: SendMessageRequest): StoredTask | undefined | Promise<StoredTask | undefined> {
    if (!this.d.deduplicates || ctx.messageIdMinted) return undefined;
    const store = this.d.store;
    const messageId = req.message.messageId;
    return store.findTaskByMessageIdAtHand ? store.findTaskByMessageIdAtHand(ctx.agentId, ctx.principal.subject, messageId) : store.findTaskByMessageId(ctx.agentId, ctx.principal.subject, messageId);
  }

  /** The stored task of a retry as it stands: its live copy when that is as new (or newer). */
  asItStands(s: StoredTask | undefined): { task: Task; seq: number } | undefined {
    if (!s) return undefined;
    const live = this.d.dir.live.get(s.task.id);
    return live && live.seq >= s.seq ? { task: live.task, seq: live.seq } : { task: s.task, seq: s.seq };
  }

  /** A starter for a retried blocking send: nothing runs again; the caller waits on the first task. */
  awaitRetried(t: { task: Task; seq: number }): PreparedSend {
    return { taskId: t.task.id, contextId: t.task.contextId, startSeq: t.seq, existing: t, start: (_obs: RunObserver) => {}, remote: true };
  }

  /**
   * Validates the request, resolves the task it targets and returns a starter for its run. A message
   * that names no task and carries no inline push config or references (a blocking echo's) needs no
   * lookup: it is prepared synchronously, without an async frame and an await a SendMessage.
   */
  prepare(ctx: CallContext, agent: RegisteredAgent, req: SendMessageRequest): PreparedSend | Promise<PreparedSend> {
    if (!this.preparesAtHand(ctx, req)) return this.prepareWithLookups(ctx, agent, req);
    const msg = req.message;
    this.refuseUnlessOpenToUser(msg);
    checkInputModes(agent, msg);
    return this.localSend(ctx, agent, req, undefined, randomUUID(), msg.contextId ?? randomUUID(), []);
  }

  /** `prepare` answers without a promise: the message names no task and carries no inline push config or references. */
  preparesAtHand(ctx: CallContext, req: SendMessageRequest): boolean {
    const msg = req.message;
    return !(msg.taskId || req.configuration?.taskPushNotificationConfig || msg.referenceTaskIds?.length || chosenTaskIdOf(ctx) !== undefined);
  }

  /** The first checks of every message, on either path: the server still takes messages, and this one is the user's. */
  private refuseUnlessOpenToUser(msg: Message): void {
    if (this.d.closed()) throw new A2AError('Unavailable', 'The server is shutting down');
    if (msg.role !== 'ROLE_USER') throw invalidParams('message.role', 'must be ROLE_USER for client messages');
  }

  private async prepareWithLookups(ctx: CallContext, agent: RegisteredAgent, req: SendMessageRequest): Promise<PreparedSend> {
    const forwarded = ctx.forwarded === true;
    const msg = req.message;
    this.refuseUnlessOpenToUser(msg);
    const inlinePush = req.configuration?.taskPushNotificationConfig;
    if (inlinePush) {
      if (!agent.pushNotifications) throw new A2AError('PushNotificationNotSupported');
      await this.d.checkWebhook(inlinePush.url);
    }
    checkInputModes(agent, msg);
    const referenceTasks = await this.loadReferences(ctx, msg.referenceTaskIds);

    let existing: LiveTask | undefined;
    let taskId: string;
    let contextId: string;
    // A v0.1 client names its task: a message under that name continues the caller's task when it
    // exists and creates it otherwise (decided here, owner-scoped, under the send permission alone).
    const chosen = msg.taskId ? undefined : chosenTaskIdOf(ctx);
    const named = msg.taskId || (chosen !== undefined && (await this.d.dir.getLive(ctx, chosen)) ? chosen : undefined);
    if (named) {
      existing = await this.d.dir.getLive(ctx, named);
      if (!existing) throw new A2AError('TaskNotFound', `Task ${named} was not found`);
      if (msg.contextId && msg.contextId !== existing.task.contextId) {
        throw invalidParams('message.contextId', 'does not match the context of the task named by message.taskId');
      }
      if (isTerminal(existing.task.status.state)) {
        throw new A2AError('UnsupportedOperation', `Task ${named} is in a terminal state and cannot accept messages; start a new task in the same contextId`);
      }
      taskId = existing.task.id;
      contextId = existing.task.contextId;
      if (this.d.cluster && !existing.run && !(await this.d.router.acquire(existing))) {
        // Another replica holds the task (its executor may be running there): the message goes to it.
        this.d.dir.live.evict(existing);
        if (forwarded) throw new A2AError('Unavailable', `Task ${taskId} moved to another replica`);
        const sent = await this.d.router.forwardTo(ctx, agent, req, existing);
        const asSent = { task: sent.task, seq: sent.seq };
        return { taskId, contextId, startSeq: sent.seq, existing: asSent, start: () => sent.send(), remote: true };
      }
      if (isTerminal(existing.task.status.state)) {
        throw new A2AError('UnsupportedOperation', `Task ${named} is in a terminal state and cannot accept messages; start a new task in the same contextId`);
      }
    } else {
      taskId = chosen ?? randomUUID();
      contextId = msg.contextId ?? randomUUID();
    }
    return this.localSend(ctx, agent, req, existing, taskId, contextId, referenceTasks);
  }

  /** The starter of a message this process runs (or delivers to its live executor). */
  private localSend(ctx: CallContext, agent: RegisteredAgent, req: SendMessageRequest, existing: LiveTask | undefined, taskId: string, contextId: string, referenceTasks: Task[]): PreparedSend {
    const msg = req.message;
    if (ctx.usage) {
      ctx.usage.taskId = taskId;
      ctx.usage.contextId = contextId;
      // A follow-up names the skill a reloaded task's later tokens are priced by.
      if (existing && ctx.usage.skill !== undefined) existing.usage.skill ??= ctx.usage.skill;
    }
    // Built without `delete`: deleting a key turns the object into a slow dictionary-mode object.
    const userMessage: Message = existing ? copyWith(msg, { taskId, contextId }) : withoutKey(copyWith(msg, { contextId }), 'taskId');
    // Known as starting from now until its first commit (or its end), when the store has it.
    const entry = !existing && this.d.deduplicates && !ctx.messageIdMinted ? { agentId: ctx.agentId, owner: ctx.principal.subject, taskId, contextId } : undefined;
    if (entry) this.starting.set(msg.messageId, entry);
    return new LocalSend(this, ctx, agent, req, existing, taskId, contextId, userMessage, referenceTasks, entry);
  }

  /** Starts (or delivers to its live executor) the message `send` prepared; `given` waits on it. */
  startLocal(send: LocalSend, given: RunObserver, opts: { createTaskNow?: boolean } | undefined): void {
    const { ctx, agent, req, existing, taskId, contextId, userMessage, entry } = send;
    const runs = this.d.supervisor;
    const obs = entry ? new LeavingStarting(given, this.starting, req.message.messageId, entry) : given;
    if (existing?.run) {
      runs.deliver(existing, existing.run, userMessage, obs, ctx.trace);
      return;
    }
    // A follow-up another replica forwarded carries no scopes: the run acts for the stored caller.
    const caller = (ctx.forwarded === true && existing ? callerOfStored(existing.caller, existing.owner) : undefined) ?? runCallerOf(ctx);
    const run = runs.newRun({
      definition: agent.definition,
      agentId: agent.id,
      taskId,
      contextId,
      message: userMessage,
      task: existing ? this.d.dir.viewFull(existing.task) : undefined,
      referenceTasks: send.referenceTasks,
      activatedExtensions: ctx.requestedExtensions.length === 0 ? NO_STRINGS : ctx.requestedExtensions.filter((u) => agent.supportedExtensions.includes(u)),
      acceptedOutputModes: req.configuration?.acceptedOutputModes ?? NO_STRINGS,
      requestMetadata: req.metadata,
      resumed: false,
      usecases: ctx.usecases,
      owner: ctx.principal.subject,
      caller,
      trace: ctx.trace,
    });
    // Optional fields set one by one: each conditional spread was a CopyDataProperties call.
    const create: PendingCreate = { owner: ctx.principal.subject, userMessage, inlinePush: req.configuration?.taskPushNotificationConfig, pushBodyVersion: pushBodyVersionOfCall(ctx) };
    if (ctx.usage && !existing) create.usage = { draft: ctx.usage };
    // The task remembers the span it is created in (the call's core operation).
    if (ctx.trace) create.traceParent = traceparentOf(ctx.trace);
    // A resumed run calls other agents for the caller it was started by (hosted-agent-calls.ts).
    if (agent.definition.resumable) create.caller = storedCaller(caller);
    if (opts?.createTaskNow && !existing) create.createNow = true;
    runs.observe(run, obs, create);
    if (existing) {
      existing.run = run;
      // As for a message to a live executor: a returnImmediately caller is answered once it is durable.
      void this.d.taskLog.append(existing, [{ userMessage }], ctx.trace).then(
        () => obs.onCommitted(),
        (e) => this.d.log.error({ err: e, taskId }, 'commit failed'),
      );
    }
    runs.start(run);
  }

  private async loadReferences(ctx: CallContext, ids: string[] | undefined): Promise<Task[]> {
    if (!ids?.length) return [];
    const out: Task[] = [];
    for (const id of ids.slice(0, 32)) {
      const t = await this.d.dir.visibleStored(ctx, id);
      if (!t) throw new A2AError('TaskNotFound', `Referenced task ${id} was not found`);
      out.push(t.task);
    }
    return out;
  }
}

/**
 * A message this process runs, prepared: what its start needs, in fields of one object (where a
 * closure held them in a scope of its own, beside the prepared send's literal).
 */
class LocalSend implements PreparedSend {
  readonly startSeq: number;
  readonly remote = false;

  constructor(
    private readonly intake: MessageIntake,
    readonly ctx: CallContext,
    readonly agent: RegisteredAgent,
    readonly req: SendMessageRequest,
    readonly existing: LiveTask | undefined,
    readonly taskId: string,
    readonly contextId: string,
    readonly userMessage: Message,
    readonly referenceTasks: Task[],
    readonly entry: StartingMessage | undefined,
  ) {
    this.startSeq = existing?.seq ?? 0;
  }

  start(obs: RunObserver, opts?: { createTaskNow?: boolean }): void {
    this.intake.startLocal(this, obs, opts);
  }
}

/**
 * The observer of a run whose message is known as starting: passes everything on to `given`, and
 * at the run's first sign (a commit, an answer, its end) the message stops being "starting" (one
 * object per run, where a merged observer took five closures).
 */
class LeavingStarting implements RunObserver {
  constructor(
    private readonly given: RunObserver,
    private readonly starting: StartingMessages,
    private readonly messageId: string,
    private readonly entry: StartingMessage,
  ) {}

  onMessage(m: Message): void {
    this.given.onMessage(m);
    this.leave();
  }

  onCommitted(): void {
    this.given.onCommitted();
    this.leave();
  }

  onEnd(err?: Error, task?: Task): void {
    this.given.onEnd(err, task);
    this.leave();
  }

  onDuplicate(task: Task): void {
    this.given.onDuplicate?.(task);
    this.leave();
  }

  /** Called at each sign; only the first finds its entry (and a later message's entry is not its own). */
  private leave(): void {
    // Only its own entry: a later message with the same key may have taken the slot since.
    this.starting.leave(this.messageId, this.entry);
  }
}
