/**
 * The distributed event bus (docs/decisions/0006-redis-event-bus.md): Redis pub/sub for live
 * fan-out between replicas, the event log in the store for everything Redis may lose.
 *
 * Every replica subscribes once, at open, to one channel for all task events and one for control
 * signals; a subscription to a task is local bookkeeping, never a Redis round trip. Local
 * subscribers get a replica's own records synchronously from `publish`, as with the in-process bus,
 * and skip the Redis echo. While the subscriber connection is down, every subscribed task is
 * read from the log on a timer, so streams keep moving on PostgreSQL alone. While no other replica
 * listens, PUBLISHes are skipped (lone-publisher.ts).
 */
import type { Redis } from 'ioredis';
import { redactUrl } from '../../config/redact-url.js';
import type { TaskEventRecord } from '../../store/task-event-record.js';
import type { BusHealth, EventBus, SubscribeOptions, TaskControl, TaskControlListener, TaskEventListener } from '../event-bus.js';
import { assertRedisUrl, closeConnection, createBusConnection, nextReady, RedisUnavailableError, withTimeout } from './connections.js';
import { LonePublisher, republishFromLog } from './lone-publisher.js';
import { OrderedSubscription, type EventLogReader } from './ordered-subscription.js';
import { encodeFrame, parseControl, parseEventRecords, readFrameHeader, stampPublished, takePublished } from './wire-format.js';
import type { Metrics } from '../../observability/metrics/index.js';

/** pino's (obj, msg) call shape, so a pino child logger fits as is. */
export interface RedisEventBusLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface RedisEventBusOptions {
  /** redis:// or rediss:// */
  url: string;
  /** this process's id among the replicas; the origin of what it publishes and the `to` of control */
  replicaId: string;
  /** channel name prefix, so deployments can share a Redis; default 'agentport' */
  prefix?: string;
  /** `Store.readEvents` of the shared store */
  readEvents: EventLogReader;
  log?: RedisEventBusLog;
  /** how often subscribed tasks are read from the log while Redis is down; default 1000 ms */
  pollWhileDownMs?: number;
  /** how long `open` waits for Redis; default 5000 ms */
  connectTimeoutMs?: number;
  /** how often the listeners of the events channel are counted (PUBLISH is skipped while none but this replica); default 500 ms */
  listenerCheckMs?: number;
  /** metrics on: frames carry their publish time, and receivers observe the lag */
  metrics?: Pick<Metrics, 'busDelivered'>;
}

const HEALTH_PING_MS = 1000;
/** How long a replica that subscribes waits for the others to answer its greeting (lone-publisher.ts). */
const GREETING_WAIT_MS = 1000;
/** Tasks remembered for a republish after dropped PUBLISHes; beyond it the oldest are forgotten. */
const MAX_DROPPED_TASKS = 10_000;

const processWarningLog: RedisEventBusLog = {
  info: () => {},
  warn: (obj, msg) => process.emitWarning(`${msg ?? 'event bus'} ${JSON.stringify(obj, errorFields)}`, { code: 'AGENTPORT_BUS' }),
  error: (obj, msg) => process.emitWarning(`${msg ?? 'event bus'} ${JSON.stringify(obj, errorFields)}`, { code: 'AGENTPORT_BUS' }),
};

function errorFields(_key: string, value: unknown): unknown {
  return value instanceof Error ? value.message : value;
}

export class RedisEventBus implements EventBus {
  readonly replicaId: string;
  private readonly url: string;
  private readonly readEvents: EventLogReader;
  private readonly log: RedisEventBusLog;
  private readonly metrics: Pick<Metrics, 'busDelivered'> | undefined;
  private readonly pollWhileDownMs: number;
  private readonly connectTimeoutMs: number;
  private readonly eventsChannel: string;
  private readonly controlChannel: string;
  /** this replica's own channel: health() publishes a probe to it and times its return */
  private readonly probeChannel: string;
  /** replicas greet each other here when they subscribe, so a lone one starts publishing (lone-publisher.ts) */
  private readonly replicasChannel: string;
  /** greetings of this replica waiting for answers: each is called with the origin of an answer */
  private readonly greetingWaiters = new Set<(origin: string) => void>();
  private readonly probes = new Map<string, () => void>();
  private probeSeq = 0;
  private readonly pub: Redis;
  private readonly sub: Redis;

  /** only tasks with at least one subscriber have an entry */
  private readonly subscriptions = new Map<string, Set<OrderedSubscription>>();
  private readonly controlListeners = new Set<TaskControlListener>();
  /** per task, the last record whose PUBLISH was dropped: republished when Redis is back */
  private readonly droppedTails = new Map<string, TaskEventRecord>();
  private readonly lone: LonePublisher;

  /** both channels subscribed on a connection that is up */
  private subscribed = false;
  private everSubscribed = false;
  private resolveFirstSubscription: () => void = () => {};
  private readonly firstSubscription = new Promise<void>((r) => (this.resolveFirstSubscription = r));
  private pollTimer: NodeJS.Timeout | undefined;
  /** so an outage is logged once per connection, not at every reconnect attempt */
  private readonly connectionErrorLogged = new WeakSet<Redis>();
  private publishFailureLogged = false;
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(opts: RedisEventBusOptions) {
    assertRedisUrl(opts.url);
    if (!opts.replicaId) throw new Error('event bus: replicaId must not be empty');
    this.replicaId = opts.replicaId;
    this.url = redactUrl(opts.url, '(unparseable Redis URL)');
    this.readEvents = opts.readEvents;
    this.log = opts.log ?? processWarningLog;
    this.metrics = opts.metrics;
    this.pollWhileDownMs = opts.pollWhileDownMs ?? 1000;
    this.connectTimeoutMs = opts.connectTimeoutMs ?? 5000;
    const prefix = opts.prefix ?? 'agentport';
    this.eventsChannel = `${prefix}:events`;
    this.controlChannel = `${prefix}:control`;
    this.probeChannel = `${prefix}:probe:${this.replicaId}`;
    this.replicasChannel = `${prefix}:replicas`;
    this.lone = new LonePublisher({
      countListeners: () => this.countListeners(),
      republish: (tails) =>
        void republishFromLog(tails, {
          readEvents: this.readEvents,
          publish: (record) => this.publishRecords(record.taskId, [record]),
          retryMs: this.pollWhileDownMs,
          closed: () => this.closed,
          onReadError: (err) => this.log.warn({ err }, 'event bus: reading skipped records back from the event log failed; retrying'),
        }),
      pollMs: opts.listenerCheckMs,
    });

    const connection = (role: string, pipelineTicks = false): Redis => createBusConnection({ url: opts.url, name: `agentport:${this.replicaId}:${role}`, connectTimeoutMs: this.connectTimeoutMs, pipelineTicks });
    this.pub = connection('pub', true);
    this.sub = connection('sub');
    for (const conn of [this.pub, this.sub]) {
      conn.on('error', (err: unknown) => this.onConnectionError(conn, err));
      conn.on('ready', () => this.connectionErrorLogged.delete(conn));
    }
    this.pub.on('ready', () => this.onPublisherReady());
    this.sub.on('ready', () => this.onSubscriberReady());
    this.sub.on('close', () => this.onSubscriberDown());
    this.sub.on('message', (channel: string, frame: string) => {
      if (channel === this.eventsChannel) this.onEventFrame(frame);
      else if (channel === this.controlChannel) this.onControlFrame(frame);
      else if (channel === this.probeChannel) this.probes.get(frame)?.();
      else if (channel === this.replicasChannel) this.onReplicasFrame(frame);
    });
  }

  /** Connects both connections and subscribes; rejects with RedisUnavailableError when Redis does not answer in time. */
  async open(): Promise<this> {
    let lastError: unknown;
    const noteError = (err: unknown): void => {
      lastError = err;
    };
    this.pub.on('error', noteError);
    this.sub.on('error', noteError);
    try {
      this.pub.connect().catch(noteError);
      this.sub.connect().catch(noteError);
      await withTimeout(Promise.all([nextReady(this.pub), this.firstSubscription]), this.connectTimeoutMs, 'connecting to Redis');
      return this;
    } catch (err) {
      await this.close();
      throw new RedisUnavailableError(this.url, this.connectTimeoutMs, lastError ?? err);
    } finally {
      this.pub.off('error', noteError);
      this.sub.off('error', noteError);
    }
  }

  publish(records: TaskEventRecord[]): void {
    if (this.closed || records.length === 0) return;
    const byTask = new Map<string, TaskEventRecord[]>();
    for (const record of records) {
      const subs = this.subscriptions.get(record.taskId);
      if (subs) {
        // A snapshot: subscriptions added by a listener take effect from the next record.
        if (subs.size === 1) subs.values().next().value?.offer([record]);
        else for (const s of Array.from(subs)) s.offer([record]);
      }
      const group = byTask.get(record.taskId);
      if (group) group.push(record);
      else byTask.set(record.taskId, [record]);
    }
    if (this.lone.alone) {
      for (const group of byTask.values()) this.lone.skip(group[group.length - 1]!);
      return;
    }
    for (const [taskId, group] of byTask) this.publishRecords(taskId, group);
  }

  aloneSpell(): number | undefined {
    return this.lone.spell;
  }

  subscribe(taskId: string, listener: TaskEventListener, opts: SubscribeOptions = {}): () => void {
    if (this.closed) return () => {};
    const subscription = new OrderedSubscription({
      taskId,
      listener,
      readEvents: this.readEvents,
      afterSeq: opts.afterSeq,
      retryDelayMs: this.pollWhileDownMs,
      onListenerError: (err) => this.log.warn({ err, taskId }, 'event bus listener threw'),
      onReadError: (err) => this.log.warn({ err, taskId }, 'event bus: reading the event log failed; retrying'),
    });
    let set = this.subscriptions.get(taskId);
    if (!set) {
      set = new Set();
      this.subscriptions.set(taskId, set);
    }
    set.add(subscription);
    // Closes the race with the caller's snapshot: a record committed and published between the
    // snapshot and this subscription went by before we listened, but it is in the log.
    if (opts.afterSeq !== undefined) subscription.catchUp();
    const owned = set;
    return () => {
      subscription.close();
      if (!owned.delete(subscription)) return;
      if (owned.size === 0 && this.subscriptions.get(taskId) === owned) this.subscriptions.delete(taskId);
    };
  }

  publishControl(signal: TaskControl): void {
    if (this.closed) return;
    const stamped: TaskControl = { ...signal, from: this.replicaId };
    if (!signal.to || signal.to === this.replicaId) this.deliverControl(stamped);
    if (signal.to === this.replicaId) return;
    this.pub.publish(this.controlChannel, encodeFrame(this.replicaId, signal.to ?? '', stamped)).catch((err: unknown) => {
      // The core fences by leases, so a lost signal costs time, not correctness.
      this.log.warn({ err, taskId: signal.taskId, type: signal.type, to: signal.to }, 'event bus: control signal not published (Redis unavailable)');
    });
  }

  onControl(listener: TaskControlListener): () => void {
    if (this.closed) return () => {};
    const entry: TaskControlListener = (s) => listener(s);
    this.controlListeners.add(entry);
    return () => {
      this.controlListeners.delete(entry);
    };
  }

  async health(): Promise<BusHealth> {
    if (this.closed) return { ok: false, detail: 'event bus closed' };
    try {
      await withTimeout(this.pub.ping(), HEALTH_PING_MS, 'PING');
    } catch (err) {
      return { ok: false, detail: `Redis at ${this.url} did not answer: ${err instanceof Error ? err.message : String(err)}` };
    }
    if (!this.subscribed) return { ok: false, detail: `not subscribed to Redis at ${this.url}; streams are read from the event log` };
    // The path events take between replicas, end to end: PUBLISH, Redis, our subscriber connection.
    const probe = `${this.replicaId}:${++this.probeSeq}`;
    const started = performance.now();
    const back = new Promise<void>((resolve) => this.probes.set(probe, resolve));
    try {
      await withTimeout(
        this.pub.publish(this.probeChannel, probe).then(() => back),
        HEALTH_PING_MS,
        'the probe round trip',
      );
    } catch {
      return { ok: false, detail: `a probe published to Redis at ${this.url} did not come back within ${HEALTH_PING_MS} ms` };
    } finally {
      this.probes.delete(probe);
    }
    return { ok: true, roundTripMs: Math.round((performance.now() - started) * 100) / 100 };
  }

  /** Tasks with at least one subscriber (for tests and metrics). */
  get subscribedTaskCount(): number {
    return this.subscriptions.size;
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    this.closed = true;
    this.lone.close();
    this.stopPolling();
    for (const set of this.subscriptions.values()) for (const s of set) s.close();
    this.subscriptions.clear();
    this.controlListeners.clear();
    this.droppedTails.clear();
    await Promise.all([closeConnection(this.pub), closeConnection(this.sub)]);
  }

  private publishRecords(taskId: string, records: TaskEventRecord[]): void {
    const dropped = (err: unknown): void => {
      if (this.closed) return;
      // never empty: callers publish a task's group of records, or one dropped tail
      this.rememberDropped(records[records.length - 1]!);
      if (this.publishFailureLogged) return;
      this.publishFailureLogged = true;
      this.log.warn({ err, url: this.url }, 'event bus: Redis unavailable, events are not fanned out to other replicas (they read the log meanwhile)');
    };
    // enableOfflineQueue is off, so while Redis is down this rejects at once instead of queueing.
    const body = this.metrics ? stampPublished(records, Date.now()) : records;
    this.pub.publish(this.eventsChannel, encodeFrame(this.replicaId, taskId, body)).catch(dropped);
  }

  /**
   * A replica whose subscriber connection never dropped cannot know that our PUBLISH did; the last
   * record republished once Redis is back shows it the gap, which it then fills from the log.
   */
  private rememberDropped(record: TaskEventRecord): void {
    this.droppedTails.delete(record.taskId);
    this.droppedTails.set(record.taskId, record);
    if (this.droppedTails.size > MAX_DROPPED_TASKS) {
      const oldest = this.droppedTails.keys().next().value;
      if (oldest !== undefined) this.droppedTails.delete(oldest);
    }
  }

  private onPublisherReady(): void {
    this.publishFailureLogged = false;
    if (this.closed || this.droppedTails.size === 0) return;
    const tails = Array.from(this.droppedTails.values());
    this.droppedTails.clear();
    for (const record of tails) this.publishRecords(record.taskId, [record]);
  }

  private onSubscriberReady(): void {
    if (this.closed) return;
    this.sub.subscribe(this.eventsChannel, this.controlChannel, this.probeChannel, this.replicasChannel).then(
      () => this.onSubscribed(),
      // The connection dropped again before Redis confirmed; the next 'ready' retries.
      (err: unknown) => {
        if (!this.closed) this.log.warn({ err, url: this.url }, 'event bus: SUBSCRIBE failed; retrying on reconnect');
      },
    );
  }

  private onSubscribed(): void {
    if (this.closed || this.sub.status !== 'ready') return;
    this.subscribed = true;
    this.stopPolling();
    if (this.everSubscribed) {
      this.log.info({ url: this.url }, 'event bus: Redis is back; live delivery resumed');
      // Whatever was committed after the last poll and before SUBSCRIBE took effect is in the log.
      this.catchUpAll();
    }
    this.everSubscribed = true;
    this.lone.start();
    void this.greetOthers().finally(() => this.resolveFirstSubscription());
  }

  /** Subscribers of the events channel, this replica's own subscription included (PUBSUB NUMSUB). */
  private async countListeners(): Promise<number> {
    const reply = (await this.pub.call('PUBSUB', 'NUMSUB', this.eventsChannel)) as [string, number | string];
    return Number(reply[1]);
  }

  /**
   * Tells the other replicas that this one listens now, so one that skips its PUBLISHes because it
   * was alone publishes again, and waits (at most GREETING_WAIT_MS) until each has answered: what
   * they publish after that reaches this replica live. A listener that never answers (a replica of
   * an older build, which publishes anyway, or another client) only makes the wait run out.
   */
  private async greetOthers(): Promise<void> {
    let others: number;
    try {
      others = (await this.countListeners()) - 1;
    } catch {
      return;
    }
    if (others <= 0 || this.closed) return;
    const answered = new Set<string>();
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.greetingWaiters.delete(onAnswer);
        resolve();
      };
      const onAnswer = (origin: string): void => {
        answered.add(origin);
        if (answered.size >= others) done();
      };
      const timer = setTimeout(done, GREETING_WAIT_MS);
      timer.unref();
      this.greetingWaiters.add(onAnswer);
      this.pub.publish(this.replicasChannel, encodeFrame(this.replicaId, '', { type: 'hello' })).catch(done);
    });
  }

  /** A greeting of another replica (answered once this one publishes again) or an answer to ours. */
  private onReplicasFrame(frame: string): void {
    const header = readFrameHeader(frame);
    if (!header || header.origin === this.replicaId || this.closed) return;
    if (header.key === '') {
      this.lone.heard();
      this.pub.publish(this.replicasChannel, encodeFrame(this.replicaId, header.origin, { type: 'answer' })).catch(() => {
        // The greeting replica stops waiting after GREETING_WAIT_MS; this one publishes meanwhile.
      });
    } else if (header.key === this.replicaId) {
      for (const w of Array.from(this.greetingWaiters)) w(header.origin);
    }
  }

  private onSubscriberDown(): void {
    if (this.closed || !this.subscribed) return;
    this.subscribed = false;
    this.lone.stop();
    this.log.warn({ url: this.url, pollMs: this.pollWhileDownMs }, 'event bus: lost the Redis subscription; reading subscribed tasks from the event log until it is back');
    this.pollTimer = setInterval(() => this.catchUpAll(), this.pollWhileDownMs);
    this.pollTimer.unref();
  }

  private stopPolling(): void {
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = undefined;
  }

  private catchUpAll(): void {
    for (const set of this.subscriptions.values()) for (const s of set) s.catchUp();
  }

  private onConnectionError(conn: Redis, err: unknown): void {
    if (this.closed || !this.everSubscribed || this.connectionErrorLogged.has(conn)) return;
    this.connectionErrorLogged.add(conn);
    this.log.warn({ err, url: this.url, connection: conn === this.pub ? 'publisher' : 'subscriber' }, 'event bus: Redis connection error; reconnecting');
  }

  private onEventFrame(frame: string): void {
    const header = readFrameHeader(frame);
    if (!header) {
      this.log.warn({ channel: this.eventsChannel }, 'event bus: dropped a malformed frame');
      return;
    }
    // Our own records reached local subscribers in publish(); the echo is only for other replicas.
    if (header.origin === this.replicaId) return;
    const subs = this.subscriptions.get(header.key);
    if (!subs) return;
    const parsed = parseEventRecords(frame, header);
    if (!parsed) {
      this.log.warn({ channel: this.eventsChannel, from: header.origin, taskId: header.key }, 'event bus: dropped a malformed frame');
      return;
    }
    const { records, publishedAt } = takePublished(parsed);
    if (publishedAt !== undefined) this.metrics?.busDelivered(Date.now() - publishedAt);
    for (const s of Array.from(subs)) s.offer(records);
  }

  private onControlFrame(frame: string): void {
    const header = readFrameHeader(frame);
    if (!header || header.origin === this.replicaId) return;
    if (header.key !== '' && header.key !== this.replicaId) return;
    if (this.controlListeners.size === 0) return;
    const signal = parseControl(frame, header);
    if (!signal) {
      this.log.warn({ channel: this.controlChannel, from: header.origin }, 'event bus: dropped a malformed control frame');
      return;
    }
    this.deliverControl(signal);
  }

  private deliverControl(signal: TaskControl): void {
    for (const l of Array.from(this.controlListeners)) {
      try {
        l(signal);
      } catch (err) {
        this.log.warn({ err, taskId: signal.taskId }, 'event bus control listener threw');
      }
    }
  }
}

/** Builds the bus and connects it (see `RedisEventBus.open`); a bad option rejects too, never throws. */
export async function openRedisEventBus(opts: RedisEventBusOptions): Promise<RedisEventBus> {
  return new RedisEventBus(opts).open();
}
