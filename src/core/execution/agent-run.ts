/**
 * One execution of an agent's executor for one task: the AgentContext the executor sees, turning
 * its helper calls into AgentEvents for the task service. Cancellation reaches it through `signal`.
 */
import { randomUUID } from 'node:crypto';
import { toParts, type AgentContext, type AgentDefinition, type AgentEvent, type HostedAgents, type UsageReport } from '../agents/agent-definition.js';
import type { RunCaller } from './hosted-agent-calls.js';
import type { Artifact, JsonObject, Message, Part, Task } from '../../protocol/a2a/types.js';
import { A2AError } from '../../protocol/a2a/errors.js';
import type { Context } from '../../observability/tracing/index.js';

export interface AgentRunHost {
  onAgentEvent(run: AgentRun, event: AgentEvent): void;
  /** whether this run still holds its task (distributed mode: the lease), see AgentContext.stillOwner */
  stillOwner(run: AgentRun): Promise<boolean>;
  /** LLM usage the executor reports (AgentContext.reportUsage) */
  onUsage?(run: AgentRun, usage: UsageReport): void;
  /** AgentContext.agents: other hosted agents, called as the run's caller */
  hostedAgents?(run: AgentRun): HostedAgents | undefined;
}

export interface AgentRunOptions {
  host: AgentRunHost;
  definition: AgentDefinition;
  agentId: string;
  taskId: string;
  contextId: string;
  /** the user message this run answers */
  message: Message;
  /** the task as it stands; undefined until the run creates it */
  task?: Task;
  referenceTasks?: Task[];
  activatedExtensions?: readonly string[];
  acceptedOutputModes?: readonly string[];
  requestMetadata?: JsonObject;
  /** true when this run picks up a task whose previous executor's replica died */
  resumed?: boolean;
  /** the caller's usecases (src/core/authz); undefined = all */
  usecases?: readonly string[];
  /** the subject owning the task: conversations are the owner's (conversationKey) */
  owner?: string;
  /** who the run acts for when it calls other hosted agents (AgentContext.agents) */
  caller?: RunCaller;
  /** with tracing on, the span the run is started in (the call's core operation, a forwarded message) */
  trace?: Context | undefined;
}

/** One `sleep()` in progress: its timer and how to settle it. */
class PendingSleep {
  timer?: NodeJS.Timeout;
  constructor(
    readonly run: AgentRun,
    readonly resolve: () => void,
    readonly reject: (e: unknown) => void,
  ) {}
}

function wake(s: PendingSleep): void {
  s.run.woke(s);
}

/**
 * An artifact event made by `artifact()`: its artifact is a new object with its id, held by nothing
 * else, so the run supervisor takes it into the log event as it is (an executor's own event's
 * artifact is copied: the executor may still hold it).
 */
export class RunArtifactEvent {
  readonly kind = 'artifact' as const;
  append?: boolean;
  lastChunk?: boolean;

  constructor(readonly artifact: Artifact) {}
}

/** `artifact()` without options: one shared object, not an empty literal a call (it is only read). */
const NO_ARTIFACT_OPTIONS: { artifactId?: string; name?: string; description?: string; append?: boolean; lastChunk?: boolean; metadata?: JsonObject } = Object.freeze({});

/** runs started in this process: each run's serial */
let runsCreated = 0;

export class AgentRun implements AgentContext {
  /** this process's name for the run, unique among its runs (the supervisor's key for it) */
  readonly serial = `run-${++runsCreated}`;
  /** created on first use: most runs never look at their signal, and an AbortSignal is not free */
  private controller?: AbortController;
  private canceled = false;
  /** set once the task reached a terminal state or the run was canceled: later events are dropped */
  finished = false;
  /** whether a task exists for this run (false until its first non-message event) */
  hasTask: boolean;
  /** messages delivered while the executor was not waiting for one; made at the first (most runs get none) */
  private inbox: Message[] | undefined = undefined;
  /** the executor's sleeps in progress, rejected by a cancel */
  private sleeps?: PendingSleep[] | undefined;
  private inboxWaiter?: { resolve: (m: Message) => void; reject: (e: unknown) => void };
  private artifactCounter = 0;
  /** the commit the run's last event waits on, and for whom (RunSupervisor.onAgentEvent: one reaction a commit) */
  awaitedCommit: Promise<void> | undefined = undefined;
  awaitedBy: object | undefined = undefined;

  private readonly host: AgentRunHost;
  readonly definition: AgentDefinition;
  readonly agentId: string;
  readonly taskId: string;
  readonly contextId: string;
  readonly message: Message;
  readonly task: Task | undefined;
  readonly referenceTasks: Task[];
  readonly activatedExtensions: readonly string[];
  readonly acceptedOutputModes: readonly string[];
  readonly requestMetadata: JsonObject | undefined;
  readonly resumed: boolean;
  readonly usecases?: readonly string[];
  /** the parent of the run's span until it starts, then the run's span (AgentContext.trace) */
  trace: Context | undefined;
  private readonly owner: string;
  readonly caller: RunCaller | undefined;
  private hosted?: HostedAgents | undefined;

  /**
   * `host`: the supervisor's own runs name it here, not in their options literal (a field added to
   * a literal after it is made takes a property array a run; issue 26, bytes a request).
   */
  constructor(o: AgentRunOptions);
  constructor(o: Omit<AgentRunOptions, 'host'>, host: AgentRunHost);
  constructor(o: Omit<AgentRunOptions, 'host'> & { host?: AgentRunHost }, host?: AgentRunHost) {
    this.host = (host ?? o.host)!;
    this.definition = o.definition;
    this.agentId = o.agentId;
    this.taskId = o.taskId;
    this.contextId = o.contextId;
    this.message = o.message;
    this.task = o.task;
    this.referenceTasks = o.referenceTasks ?? [];
    this.activatedExtensions = o.activatedExtensions ?? [];
    this.acceptedOutputModes = o.acceptedOutputModes ?? [];
    this.requestMetadata = o.requestMetadata;
    this.resumed = o.resumed ?? false;
    this.usecases = o.usecases;
    this.owner = o.owner ?? '';
    this.caller = o.caller;
    this.trace = o.trace;
    this.hasTask = o.task !== undefined;
    // Default artifact ids stay unique across runs of the same task.
    this.artifactCounter = o.task?.artifacts?.length ?? 0;
  }

  get conversationKey(): string {
    return JSON.stringify([this.owner, this.contextId]);
  }

  get agents(): HostedAgents | undefined {
    this.hosted ??= this.host.hostedAgents?.(this);
    return this.hosted;
  }

  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.canceled) this.controller.abort();
    return this.controller.signal;
  }

  get isCanceled(): boolean {
    return this.canceled;
  }

  /** Cancels the run: the signal aborts, and pending sleep()/nextMessage() reject. */
  cancel(): void {
    if (this.canceled) return;
    this.canceled = true;
    this.controller?.abort();
    const sleeps = this.sleeps;
    this.sleeps = undefined;
    for (const s of sleeps ?? []) {
      clearTimeout(s.timer);
      s.reject(new A2AError('TaskNotCancelable', 'The task was canceled'));
    }
    this.inboxWaiter?.reject(new A2AError('TaskNotCancelable', 'The task was canceled'));
    this.inboxWaiter = undefined;
  }

  text(): string {
    return this.message.parts
      .filter((p) => typeof p.text === 'string')
      .map((p) => p.text)
      .join('\n');
  }

  emit(event: AgentEvent): void {
    if (this.finished) return;
    this.host.onAgentEvent(this, event);
  }

  reply(content: string | Part[]): void {
    this.emit({ kind: 'message', message: { parts: toParts(content) } });
  }
  working(message?: string | Part[]): void {
    this.emit({ kind: 'status', state: 'TASK_STATE_WORKING', message });
  }
  artifact(parts: string | Part[], opts: { artifactId?: string; name?: string; description?: string; append?: boolean; lastChunk?: boolean; metadata?: JsonObject } = NO_ARTIFACT_OPTIONS): string {
    const artifactId = opts.artifactId ?? `artifact-${++this.artifactCounter}`;
    // Optional fields assigned, not spread: each conditional spread was an object made to be copied
    // and a CopyDataProperties call, and the spread-built literals had hidden classes of their own (ADR 0046).
    const artifact: Artifact = { artifactId, parts: toParts(parts) };
    if (opts.name) artifact.name = opts.name;
    if (opts.description) artifact.description = opts.description;
    if (opts.metadata) artifact.metadata = opts.metadata;
    const event = new RunArtifactEvent(artifact);
    if (opts.append !== undefined) event.append = opts.append;
    if (opts.lastChunk !== undefined) event.lastChunk = opts.lastChunk;
    this.emit(event);
    return artifactId;
  }
  complete(message?: string | Part[]): void {
    this.emit({ kind: 'status', state: 'TASK_STATE_COMPLETED', message });
  }
  fail(reason: string): void {
    this.emit({ kind: 'status', state: 'TASK_STATE_FAILED', message: reason });
  }
  reject(reason: string): void {
    this.emit({ kind: 'status', state: 'TASK_STATE_REJECTED', message: reason });
  }
  askInput(question: string | Part[]): void {
    this.emit({ kind: 'status', state: 'TASK_STATE_INPUT_REQUIRED', message: question });
  }
  requireAuth(explanation: string | Part[]): void {
    this.emit({ kind: 'status', state: 'TASK_STATE_AUTH_REQUIRED', message: explanation });
  }

  sleep(ms: number): Promise<void> {
    if (this.canceled) return Promise.reject(new A2AError('TaskNotCancelable', 'The task was canceled'));
    // Cancel reaches a sleep through the run's own list, not an abort listener: an idle executor
    // then holds a timer and its promise, not an AbortSignal with its listener maps as well.
    return new Promise((resolve, reject) => {
      const s = new PendingSleep(this, resolve, reject);
      s.timer = setTimeout(wake, ms, s);
      (this.sleeps ??= []).push(s);
    });
  }

  /** A sleep's timer fired: it is no longer cancelable. */
  woke(s: PendingSleep): void {
    const i = this.sleeps?.indexOf(s) ?? -1;
    if (i >= 0) this.sleeps!.splice(i, 1);
    s.resolve();
  }

  nextMessage(): Promise<Message> {
    const m = this.inbox?.shift();
    if (m) return Promise.resolve(m);
    if (this.canceled) return Promise.reject(new A2AError('TaskNotCancelable', 'The task was canceled'));
    return new Promise((resolve, reject) => {
      this.inboxWaiter = { resolve, reject };
    });
  }

  /** A user message sent to the task while this run is live. */
  deliver(m: Message): void {
    if (this.inboxWaiter) {
      const w = this.inboxWaiter;
      this.inboxWaiter = undefined;
      w.resolve(m);
    } else {
      (this.inbox ??= []).push(m);
    }
  }

  reportUsage(usage: UsageReport): void {
    this.host.onUsage?.(this, usage);
  }

  stillOwner(): Promise<boolean> {
    if (this.canceled) return Promise.resolve(false);
    return this.host.stillOwner(this);
  }

  newMessageId(): string {
    return randomUUID();
  }
}
