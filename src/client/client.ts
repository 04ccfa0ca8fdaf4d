/**
 * The A2A client: resolves (and optionally verifies) a card, picks the interfaces it can use in the
 * card's order, and runs every operation on the first that works, falling back to the next when a
 * transport fails (never on an A2A error: the agent answered). Credentials are refreshed once on a
 * 401. Streams survive a dropped connection: the client re-subscribes with `Last-Event-ID` (lossless
 * on Agentport, docs/extensions/last-event-id.md) or, where the server has no event ids, from the
 * task snapshot SubscribeToTask starts with.
 */
import type {
  AgentCard,
  AgentInterface,
  CancelTaskRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
  TaskState,
} from '../protocol/a2a/types.js';
import { isTerminal } from '../protocol/a2a/types.js';
import { CardResolver, type ResolvedCard } from './card-resolver.js';
import { verifyCardSignature, type CardVerification } from './card-signature.js';
import { transportFor, type TransportSettings } from './connect-transport.js';
import { A2AClientError, TransportError } from './errors.js';
import { selectInterfaces, type InterfacePreferences } from './interface-selection.js';
import { newPushConfig, type PushConfigInput } from './push.js';
import type { CallOptions, StreamEvent, Transport } from './transport.js';

export interface A2AClientOptions extends TransportSettings, InterfacePreferences {
  /** require a valid card signature from these keys */
  verifyCard?: CardVerification;
  /** share one resolver (and its cache) between clients */
  cardResolver?: CardResolver;
  /** re-subscriptions after a dropped stream before giving up (default 5) */
  maxStreamResumes?: number;
  /** first wait before re-subscribing, doubled per attempt (default 200 ms) */
  resumeDelayMs?: number;
  /** told when the client moves to another interface or resumes a stream */
  onEvent?: (e: ClientEvent) => void;
}

export type ClientEvent = { type: 'fallback'; from: AgentInterface; to: AgentInterface; error: TransportError } | { type: 'resume'; taskId: string; lastEventId?: string; attempt: number; error: Error };

/** Where a stream ends by itself: terminal states and INPUT_REQUIRED (both SDKs and Agentport close there). */
const isStreamEnd = (s: TaskState): boolean => isTerminal(s) || s === 'TASK_STATE_INPUT_REQUIRED';

export function stateOf(r: StreamResponse): TaskState | undefined {
  if ('task' in r) return r.task.status.state;
  if ('statusUpdate' in r) return r.statusUpdate.status.state;
  return undefined;
}

export function taskIdOf(r: StreamResponse): string | undefined {
  if ('task' in r) return r.task.id;
  if ('statusUpdate' in r) return r.statusUpdate.taskId;
  if ('artifactUpdate' in r) return r.artifactUpdate.taskId;
  return r.message.taskId;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

export class A2AClient {
  private index = 0;
  private readonly transports = new Map<number, Transport>();

  private constructor(
    readonly card: AgentCard,
    /** the usable interfaces, in the order they are tried */
    readonly interfaces: AgentInterface[],
    private readonly opts: A2AClientOptions,
    /** how the card was obtained; undefined for fromCard */
    readonly resolved?: ResolvedCard,
  ) {}

  /** Resolves the card at `url` (an agent URL or a card URL), verifies it if asked, selects interfaces. */
  static async connect(url: string, opts: A2AClientOptions = {}): Promise<A2AClient> {
    const resolver = opts.cardResolver ?? new CardResolver({ ...(opts.fetch ? { fetch: opts.fetch } : {}), ...(opts.headers ? { headers: opts.headers } : {}) });
    const resolved = await resolver.resolve(url);
    if (opts.verifyCard) await verifyCardSignature(resolved.card, resolved.url, opts.verifyCard);
    return new A2AClient(resolved.card, selectInterfaces(resolved.card, opts), opts, resolved);
  }

  static fromCard(card: AgentCard, opts: A2AClientOptions = {}): A2AClient {
    return new A2AClient(card, selectInterfaces(card, opts), opts);
  }

  /** the interface calls currently go to */
  get currentInterface(): AgentInterface {
    return this.interfaces[this.index]!;
  }

  private transport(i = this.index): Transport {
    let t = this.transports.get(i);
    if (!t) {
      t = transportFor(this.interfaces[i]!, this.opts);
      this.transports.set(i, t);
    }
    return t;
  }

  /** Moves to the next interface after `failed`; false when there is none left. */
  private fallBack(failed: number, error: TransportError): boolean {
    if (failed !== this.index) return true; // another call already moved on
    if (this.index + 1 >= this.interfaces.length) return false;
    this.index++;
    this.opts.onEvent?.({ type: 'fallback', from: this.interfaces[failed]!, to: this.interfaces[this.index]!, error });
    return true;
  }

  /** Runs `op` on the current transport; on TransportError moves on; on 401 refreshes credentials once. */
  private async run<T>(op: (t: Transport) => Promise<T>): Promise<T> {
    let refreshed = false;
    for (;;) {
      const at = this.index;
      try {
        return await op(this.transport(at));
      } catch (err) {
        if (err instanceof TransportError && this.fallBack(at, err)) continue;
        if (err instanceof A2AClientError && err.isUnauthenticated && !refreshed && this.opts.auth?.refresh && (await this.opts.auth.refresh())) {
          refreshed = true;
          continue;
        }
        throw err;
      }
    }
  }

  sendMessage(req: SendMessageRequest, o?: CallOptions): Promise<SendMessageResponse> {
    return this.run((t) => t.sendMessage(req, o));
  }
  getTask(req: GetTaskRequest, o?: CallOptions): Promise<Task> {
    return this.run((t) => t.getTask(req, o));
  }
  listTasks(req: ListTasksRequest = {}, o?: CallOptions): Promise<ListTasksResponse> {
    return this.run((t) => t.listTasks(req, o));
  }
  cancelTask(req: CancelTaskRequest, o?: CallOptions): Promise<Task> {
    return this.run((t) => t.cancelTask(req, o));
  }
  getExtendedAgentCard(o?: CallOptions): Promise<AgentCard> {
    return this.run((t) => t.getExtendedAgentCard(o));
  }

  /** Registers a webhook for a task; a random `token` is generated when none is given (see push.ts). */
  createPushConfig(taskId: string, input: PushConfigInput, o?: CallOptions): Promise<TaskPushNotificationConfig> {
    const config = newPushConfig(taskId, input);
    return this.run((t) => t.createTaskPushNotificationConfig(config, o));
  }
  getPushConfig(taskId: string, id: string, o?: CallOptions): Promise<TaskPushNotificationConfig> {
    return this.run((t) => t.getTaskPushNotificationConfig({ taskId, id }, o));
  }
  listPushConfigs(taskId: string, page: { pageSize?: number; pageToken?: string } = {}, o?: CallOptions): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.run((t) => t.listTaskPushNotificationConfigs({ taskId, ...page }, o));
  }
  deletePushConfig(taskId: string, id: string, o?: CallOptions): Promise<void> {
    return this.run((t) => t.deleteTaskPushNotificationConfig({ taskId, id }, o));
  }

  /** SendStreamingMessage, resumed after a dropped connection until the task ends. */
  sendStreamingMessage(req: SendMessageRequest, o: CallOptions = {}): AsyncGenerator<StreamEvent> {
    return this.resilientStream((t) => t.sendStreamingMessage(req, o), undefined, undefined, o.signal, req.message.taskId !== undefined);
  }

  /** SubscribeToTask; `lastEventId` resumes after an event already seen (Agentport's Last-Event-ID). */
  subscribeToTask(taskId: string, o: CallOptions & { lastEventId?: string } = {}): AsyncGenerator<StreamEvent> {
    return this.resilientStream((t) => t.subscribeToTask({ id: taskId }, o), taskId, o.lastEventId, o.signal);
  }

  /**
   * `continuing`: the message answers an existing task. Its stream opens with the task as it was,
   * still INPUT_REQUIRED; that snapshot is the state being answered, not the end of the stream.
   */
  private async *resilientStream(
    open: (t: Transport) => AsyncIterable<StreamEvent>,
    knownTaskId: string | undefined,
    startAfter: string | undefined,
    signal?: AbortSignal,
    continuing = false,
  ): AsyncGenerator<StreamEvent> {
    let taskId = knownTaskId;
    let lastEventId = startAfter;
    let attempts = 0;
    let started = false;
    let refreshed = false;
    const max = this.opts.maxStreamResumes ?? 5;
    for (;;) {
      const at = this.index;
      let lastState: TaskState | undefined;
      let error: Error;
      try {
        const resumedAfter = started ? lastEventId : undefined;
        const source = started ? this.transport(at).subscribeToTask({ id: taskId! }, { ...(lastEventId === undefined ? {} : { lastEventId }), ...(signal ? { signal } : {}) }) : open(this.transport(at));
        for await (const ev of source) {
          // Nothing was missed: Agentport opens the resumed stream with a snapshot carrying the same
          // id (docs/extensions/last-event-id.md). The caller already has that state.
          if (resumedAfter !== undefined && ev.id === resumedAfter && 'task' in ev.response) continue;
          const firstEver = !started;
          attempts = 0;
          taskId ??= taskIdOf(ev.response);
          if (ev.id !== undefined) lastEventId = ev.id;
          // The state being answered is not the stream's state: wait for the next one.
          const answeredSnapshot = continuing && firstEver && 'task' in ev.response;
          if (!answeredSnapshot) lastState = stateOf(ev.response) ?? lastState;
          started = true;
          yield ev;
          if ('message' in ev.response && !ev.response.message.taskId) return;
          if (lastState && isStreamEnd(lastState)) return;
        }
        if (signal?.aborted) return;
        // A close before the task ended or was interrupted (a proxy's idle cut, a restart): resume.
        if (!started || !taskId) return;
        error = new TransportError('the stream closed before the task ended', this.interfaces[at]!.url);
      } catch (err) {
        if (signal?.aborted) throw err;
        if (err instanceof A2AClientError && err.isUnauthenticated && !refreshed && this.opts.auth?.refresh && (await this.opts.auth.refresh())) {
          refreshed = true;
          continue;
        }
        if (started && err instanceof A2AClientError && err.kind === 'UnsupportedOperation' && taskId) {
          // The task ended while we were away and the server cannot replay (no Last-Event-ID): its final state.
          yield { response: { task: await this.getTask({ id: taskId }) } };
          return;
        }
        if (!(err instanceof TransportError)) throw err;
        if (!started) {
          if (this.fallBack(at, err)) continue;
          throw err;
        }
        error = err;
      }
      if (++attempts > max) throw error;
      this.opts.onEvent?.({ type: 'resume', taskId: taskId!, ...(lastEventId === undefined ? {} : { lastEventId }), attempt: attempts, error });
      await sleep((this.opts.resumeDelayMs ?? 200) * 2 ** (attempts - 1), signal);
      // The interface itself may be gone: the next attempt after a failed one tries the next interface.
      if (attempts > 1 && error instanceof TransportError) this.fallBack(at, error);
    }
  }

  close(): void {
    for (const t of this.transports.values()) t.close();
    this.transports.clear();
  }
}
