/**
 * The steps of a start (./start.ts) that make the call path: the observers of every call's end
 * (usage records, metrics, the access log, traces), then the task engine, the quotas and the
 * one call pipeline every face calls into.
 */
import { protectedResourceMetadataUrl } from '../auth/oauth-paths.js';
import { httpStatusOfReason } from '../bindings/health/metrics-endpoint.js';
import type { Config } from '../config/index.js';
import type { SkillCostConfig } from '../config/usage-schema.js';
import type { A2AHandler } from '../core/a2a-handler.js';
import type { AgentRegistry } from '../core/agents/agent-registry.js';
import { authorizeStage } from '../core/stages/authorizing-handler.js';
import { resolveStage } from '../core/stages/resolve.js';
import { compose } from '../core/pipeline.js';
import type { PushDeliveryWorker } from '../core/push/delivery-worker.js';
import { quotaStage } from '../core/stages/quota-handler.js';
import { TaskService } from '../core/tasks/task-service.js';
import type { UsageDraft } from '../core/usage/usage-draft.js';
import { UsageRecorder } from '../core/usage/usage-recorder.js';
import { UsageMonthlySpend } from '../core/quotas/usage-spend.js';
import { AccessLog, type ServerLoggers } from '../observability/logging/index.js';
import { CallMetrics, type Metrics } from '../observability/metrics/index.js';
import type { Store } from '../store/index.js';
import { openQuotas, type Quotas } from './quotas.js';
import { startServerTracing, type ServerTracing } from './server-tracing.js';
import type { BackingServices, Callers, Closers, LiveConfig } from './start-services.js';

/** The price of a call to an agent's skill (usage records). */
type SkillCost = (agentId: string, skill: string | undefined) => SkillCostConfig | undefined;

export interface CallObservers {
  usageRecorder: UsageRecorder;
  skillCost: SkillCost;
  tracing: ServerTracing | undefined;
}

/**
 * Usage records (src/core/usage): a task's in its own commits, other calls queued and written in
 * batches. Observers of every call's end (metrics, the access log) register here, before the
 * listeners are built; traces (issue 14) load their SDK only when tracing is on.
 */
export async function startCallObservers(initial: Config, store: Store, registry: AgentRegistry, live: LiveConfig, closers: Closers, loggers: ServerLoggers, metrics: Metrics | undefined): Promise<CallObservers> {
  const moduleLog = loggers.module;
  // An LLM agent's price table (agents[].llm.price) prices its tasks whatever skill they name.
  const skillCost: SkillCost = (agentId, skill) => {
    const agent = live.config.agents.find((a) => a.id === agentId);
    return (skill === undefined ? undefined : agent?.skills[skill]?.cost) ?? agent?.llm?.price;
  };
  const usageRecorder = new UsageRecorder({ store: store.usage, replica: initial.cluster.replicaId, config: initial.usage, log: moduleLog('usage'), cost: skillCost, isAgent: (id) => registry.get(id) !== undefined });
  if (metrics) {
    // Configured agents are label values from the start, so their failures are never 'other'.
    metrics.labels.agent.seed(initial.agents.map((a) => a.id));
    usageRecorder.observe(new CallMetrics(metrics, { statusOf: httpStatusOfReason }));
    metrics.sources.usageDropped = () => usageRecorder.dropped;
  }
  // The access log only when on and its logger writes info: otherwise no draft is opened for it.
  if (initial.logging.accessLog && moduleLog('access').isLevelEnabled('info')) usageRecorder.observe(new AccessLog(moduleLog('access')));
  if (usageRecorder.enabled) {
    usageRecorder.start();
    // Stopped after the listeners and the task service: the last answers' records are written.
    closers.splice(closers.length - 1, 0, () => usageRecorder.close());
  }
  // Exported last, after the store closes.
  const tracing = await startServerTracing(initial, usageRecorder, moduleLog('tracing'));
  if (tracing) closers.push(() => tracing.close());
  if (tracing && metrics) metrics.sources.spansDropped = () => tracing.dropped();
  return { usageRecorder, skillCost, tracing };
}

/** The push worker, started once the agents are; the task service tells it of new outbox rows. */
export interface PushWorkerSlot {
  worker?: PushDeliveryWorker;
}

export interface CallPipeline {
  service: TaskService;
  quotas: Quotas;
  /** every A2A operation from every face goes through it */
  handler: A2AHandler;
}

export async function buildCallPipeline(
  initial: Config,
  store: Store,
  parts: { services: BackingServices; callers: Callers; observers: CallObservers; push: PushWorkerSlot; live: LiveConfig },
  loggers: ServerLoggers,
  metrics: Metrics | undefined,
  closers: Closers,
): Promise<CallPipeline> {
  const { services, callers, observers, push, live } = parts;
  const { usageRecorder, skillCost } = observers;
  // Agents calling other agents (AgentContext.agents) go through the outer handler, built below.
  let outerHandler: A2AHandler | undefined;
  const service = new TaskService({
    hostedAgents: {
      handler: () => outerHandler,
      ...(usageRecorder.tracking ? { usage: { open: (face: string) => usageRecorder.open(face), finish: (d: UsageDraft, end: { status: number; latencyMs: number }) => usageRecorder.finish(d, end) } } : {}),
    },
    registry: callers.registry,
    store,
    committer: services.committer,
    bus: services.bus,
    limits: {
      blockingSendTimeoutMs: initial.limits.blockingSendTimeoutMs,
      maxHistoryLength: initial.limits.maxHistoryLength,
      maxConcurrentStreamsPerTask: initial.limits.maxConcurrentStreamsPerTask,
      deduplicateMessageIds: initial.limits.deduplicateMessageIds,
    },
    log: loggers.module('tasks'),
    pushGuard: services.guard,
    onOutbox: () => push.worker?.kick(),
    ...(services.cluster ? { cluster: services.cluster } : {}),
    ...(usageRecorder.enabled ? { usage: { replica: initial.cluster.replicaId, cost: skillCost } } : {}),
    ...(metrics ? { metrics } : {}),
  });
  if (metrics) metrics.sources.outbox = () => store.outboxBacklog();
  // Quotas (issue 13): the usage store's MonthlySpend and the audit sink are wired in by their own work.
  const quotas = await openQuotas(initial, store.quotas, { log: loggers.module('quotas'), spend: new UsageMonthlySpend(store.usage), audit: services.audit, ...(metrics ? { metrics } : {}) });
  closers.unshift(() => quotas.close());
  const handler = callPipeline(service, quotas, callers, observers, live);
  outerHandler = handler;
  return { service, quotas, handler };
}

/**
 * The call pipeline (core/pipeline.ts): every A2A operation from every face passes these stages
 * in this order; an MCP face puts its surface stage in front (core/stages/surface.ts).
 */
function callPipeline(service: TaskService, quotas: Quotas, callers: Callers, observers: CallObservers, live: LiveConfig): A2AHandler {
  const { registry, policy } = callers;
  return compose(
    [
      ...(observers.tracing ? [observers.tracing.stage] : []),
      resolveStage(registry, policy),
      authorizeStage(policy, {
        // A hidden agent has no public RFC 9728 document (it would tell that it exists): its
        // challenges name the server's own, for the root resource.
        resourceMetadataUrl: (agentId, surface) => protectedResourceMetadataUrl(live.config.server.publicUrl, surface === 'mcp' ? '/mcp' : policy.isPublicAgent(agentId) ? `/a2a/${agentId}` : '/'),
      }),
      quotaStage(quotas.engine, service),
    ],
    service,
  );
}
