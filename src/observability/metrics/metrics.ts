/**
 * Agentport's Prometheus metrics (prom-client): one registry per server, the instruments every
 * layer reports into, and gauges read only when Prometheus scrapes (collect callbacks over what
 * the engine already holds), so the hot path pays for counters and histograms alone. A server with
 * `metrics.enabled: false` builds none of this: its parts get no Metrics and skip every call.
 */
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { BoundedLabel } from './bounded-label.js';
import { KeyedCounter, KeyedHistogram } from './keyed-instruments.js';
import { METRIC } from './metric-names.js';

/** What gauges read at scrape time; each part of the engine fills in its own. */
export interface GaugeSources {
  /** tasks whose executor runs in this process */
  tasksRunning?: () => number;
  /** open SendStreamingMessage streams and SubscribeToTask subscriptions */
  openStreams?: () => { stream: number; subscription: number };
  /** tasks whose lease this replica holds (distributed mode) */
  leasesHeld?: () => number;
  /** the push outbox: entries waiting, and when the oldest was queued (epoch ms) */
  outbox?: () => Promise<{ pending: number; oldestCreatedAt?: number }>;
  /** usage records and amends dropped since start because the usage queue was full */
  usageDropped?: () => number;
  /** spans dropped since start because the span export queue was full */
  spansDropped?: () => number;
}

/**
 * A counter over a running count its owner keeps (never reset): each scrape adds the difference
 * since the last, so the owner's hot path only increments a number.
 */
function counterOfCount(name: string, help: string, registers: Registry[], read: () => number): void {
  let seen = 0;
  new Counter({
    name,
    help,
    registers,
    collect() {
      const now = read();
      if (now > seen) this.inc(now - seen);
      seen = now;
    },
  });
}

/** A task's final state label: 'COMPLETED' for TASK_STATE_COMPLETED. */
export function stateLabel(state: string): string {
  return state.startsWith('TASK_STATE_') ? state.slice('TASK_STATE_'.length) : state;
}

/** A2A durations: from a cache hit to a long blocking send. */
const A2A_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** The bucket boundaries OpenTelemetry's MCP convention recommends for mcp.server.operation.duration. */
const MCP_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
const COMMIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64];
const NO_LABELS: readonly string[] = [];
const LAG_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

export class Metrics {
  readonly registry = new Registry();
  readonly sources: GaugeSources = {};
  /** label values bounded per label (src/observability/metrics/bounded-label.ts) */
  readonly labels = {
    face: new BoundedLabel(32),
    operation: new BoundedLabel(128),
    agent: new BoundedLabel(256),
    skill: new BoundedLabel(512),
    tool: new BoundedLabel(512),
    outcome: new BoundedLabel(64),
  };

  /** labels: face, operation, status */
  readonly requests: KeyedCounter;
  /** labels: face, operation, agent, outcome */
  readonly a2aDuration: KeyedHistogram;
  /** labels: mcp_method_name, gen_ai_tool_name, error_type, mcp_protocol_version */
  readonly mcpDuration: KeyedHistogram;
  private readonly tasksStarted: KeyedCounter;
  private readonly tasksFinished: KeyedCounter;
  private readonly pushDeliveries: Counter<'result'>;
  private readonly commitDuration: KeyedHistogram;
  private readonly commitBatch: KeyedHistogram;
  private readonly busLag: KeyedHistogram;
  private readonly forwarded: Counter<'direction'>;
  private readonly orphans: Counter;
  private readonly quotaRefusals: Counter<'kind' | 'agent'>;
  private readonly remoteRefreshes: Counter<'remote'>;
  private readonly remoteRefreshFailures: Counter<'remote' | 'reason'>;
  /** this scrape's read of the outbox, shared by its two gauges */
  private outboxRead: Promise<{ pending: number; oldestCreatedAt?: number } | undefined> | undefined;

  constructor(o: { version: string; replica: string }) {
    const registers = [this.registry];
    const sources = this.sources;
    collectDefaultMetrics({ register: this.registry });
    new Gauge({ name: METRIC.info, help: 'This Agentport replica: its version and replica id (always 1)', labelNames: ['version', 'replica'], registers }).set({ version: o.version, replica: o.replica }, 1);
    const r = this.registry;
    this.requests = new KeyedCounter(METRIC.requests, 'Calls answered, by face (binding/version), operation and HTTP status', ['face', 'operation', 'status'], r);
    this.a2aDuration = new KeyedHistogram(METRIC.a2aDuration, 'A2A operations from arrival to the end of the answer (a stream: until it closed)', ['face', 'operation', 'agent', 'outcome'], A2A_BUCKETS, r);
    this.mcpDuration = new KeyedHistogram(
      METRIC.mcpDuration,
      'MCP request duration as observed on the receiver (OpenTelemetry mcp.server.operation.duration)',
      ['mcp_method_name', 'gen_ai_tool_name', 'error_type', 'mcp_protocol_version'],
      MCP_BUCKETS,
      r,
    );
    this.tasksStarted = new KeyedCounter(METRIC.tasksStarted, 'Tasks created (first commit), by agent and skill', ['agent', 'skill'], r);
    this.tasksFinished = new KeyedCounter(METRIC.tasksFinished, 'Tasks that reached a terminal state, by agent, skill and that state', ['agent', 'skill', 'state'], r);
    new Gauge({
      name: METRIC.tasksRunning,
      help: 'Tasks whose agent executor runs in this replica',
      registers,
      collect() {
        this.set(sources.tasksRunning?.() ?? 0);
      },
    });
    new Gauge({
      name: METRIC.openStreams,
      help: 'Open SendStreamingMessage streams (kind=stream) and SubscribeToTask subscriptions (kind=subscription) in this replica',
      labelNames: ['kind'],
      registers,
      collect() {
        const n = sources.openStreams?.() ?? { stream: 0, subscription: 0 };
        this.set({ kind: 'stream' }, n.stream);
        this.set({ kind: 'subscription' }, n.subscription);
      },
    });
    this.pushDeliveries = new Counter({ name: METRIC.pushDeliveries, help: 'Push notification delivery attempts, by result: sent, retried (failed, will retry), given_up', labelNames: ['result'], registers });
    // Both outbox gauges come from one read of the store per scrape (whichever collects first reads;
    // scrape() forgets it before each scrape).
    const readOutbox = () => {
      this.outboxRead ??= sources.outbox?.().catch(() => undefined) ?? Promise.resolve(undefined);
      return this.outboxRead;
    };
    new Gauge({
      name: METRIC.outboxDepth,
      help: 'Push deliveries waiting in the outbox; the outbox is shared by replicas of one store',
      registers,
      async collect() {
        this.set((await readOutbox())?.pending ?? 0);
      },
    });
    new Gauge({
      name: METRIC.outboxAge,
      help: 'Age of the oldest push delivery waiting in the outbox (0 when empty); the outbox is shared by replicas of one store',
      registers,
      async collect() {
        const oldest = (await readOutbox())?.oldestCreatedAt;
        this.set(oldest === undefined ? 0 : Math.max(0, (Date.now() - oldest) / 1000));
      },
    });
    this.commitDuration = new KeyedHistogram(METRIC.commitDuration, 'Task commits: one store transaction of a group commit, from the start of the write to its acknowledgement', [], COMMIT_BUCKETS, r);
    this.commitBatch = new KeyedHistogram(METRIC.commitBatch, 'Task commits per store transaction (group commit)', [], BATCH_BUCKETS, r);
    this.busLag = new KeyedHistogram(METRIC.busLag, 'Task events from publish on one replica to delivery on another (Redis bus; replica clocks must agree)', [], LAG_BUCKETS, r);
    new Gauge({
      name: METRIC.leasesHeld,
      help: 'Task leases this replica holds (distributed mode)',
      registers,
      collect() {
        this.set(sources.leasesHeld?.() ?? 0);
      },
    });
    this.forwarded = new Counter({ name: METRIC.forwarded, help: 'Messages for a task leased to another replica: sent there (direction=sent), or received from one (received)', labelNames: ['direction'], registers });
    this.orphans = new Counter({ name: METRIC.orphansRecovered, help: 'Tasks of a dead or cut-off replica recovered by this one', registers });
    // Counts their owners already keep (the usage recorder, the span batcher): read at scrape.
    counterOfCount(
      METRIC.usageDropped,
      'Usage records and timing amends dropped because the queue to the store was full (usage.queueLimit): calls this replica did not record',
      registers,
      () => sources.usageDropped?.() ?? 0,
    );
    counterOfCount(
      METRIC.spansDropped,
      'Spans dropped because the queue to the span export thread was full (OTEL_BSP_MAX_QUEUE_SIZE, 8,192 spans by default): traces this replica did not export',
      registers,
      () => sources.spansDropped?.() ?? 0,
    );
    this.quotaRefusals = new Counter({ name: METRIC.quotaRefusals, help: 'Calls refused by a quota, by quota kind and agent', labelNames: ['kind', 'agent'], registers });
    this.remoteRefreshes = new Counter({
      name: METRIC.remoteTokenRefreshes,
      help: "Users' access tokens at a remote (agents[] with auth: oauth) refreshed by this replica, by remote (the agent id)",
      labelNames: ['remote'],
      registers,
    });
    this.remoteRefreshFailures = new Counter({
      name: METRIC.remoteTokenRefreshFailures,
      help: "Refreshes of a user's token at a remote that failed, by remote and reason: refused (the grant is gone; the user must connect again) or error (the remote's authorization server failed or was unreachable)",
      labelNames: ['remote', 'reason'],
      registers,
    });
  }

  taskStarted(agent: string, skill: string | undefined): void {
    this.tasksStarted.inc([this.labels.agent.of(agent, true), this.labels.skill.of(skill, true)]);
  }

  taskFinished(agent: string, skill: string | undefined, state: string): void {
    this.tasksFinished.inc([this.labels.agent.of(agent, true), this.labels.skill.of(skill, true), stateLabel(state)]);
  }

  pushDelivery(result: 'sent' | 'retried' | 'given_up'): void {
    this.pushDeliveries.inc({ result });
  }

  /** One store transaction of `size` commits took `ms`. */
  storeCommit(size: number, ms: number): void {
    this.commitDuration.observe(NO_LABELS, ms / 1000);
    this.commitBatch.observe(NO_LABELS, size);
  }

  busDelivered(lagMs: number): void {
    this.busLag.observe(NO_LABELS, Math.max(0, lagMs) / 1000);
  }

  forwardedMessage(direction: 'sent' | 'received'): void {
    this.forwarded.inc({ direction });
  }

  orphanRecovered(): void {
    this.orphans.inc();
  }

  quotaRefused(kind: string, agent: string | undefined): void {
    this.quotaRefusals.inc({ kind, agent: this.labels.agent.of(agent, true) });
  }

  remoteTokenRefreshed(remote: string): void {
    this.remoteRefreshes.inc({ remote: this.labels.agent.of(remote, true) });
  }

  remoteTokenRefreshFailed(remote: string, reason: 'refused' | 'error'): void {
    this.remoteRefreshFailures.inc({ remote: this.labels.agent.of(remote, true), reason });
  }

  /** The text Prometheus scrapes. */
  scrape(): Promise<string> {
    this.outboxRead = undefined;
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
