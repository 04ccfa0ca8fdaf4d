/**
 * The task engine in process, no HTTP: a TaskService over a real embedded store (SQLite in a temp
 * dir), the in-process bus and the group committer, hosting small agents defined by each test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineAgent, type AgentContext, type AgentDefinition } from '../../../src/agents/sdk/agent.js';
import type { EventBus } from '../../../src/bus/event-bus.js';
import { InProcessEventBus } from '../../../src/bus/in-process-bus.js';
import type { ClusterOptions } from '../../../src/core/cluster/cluster-options.js';
import { CallContext, type StreamItem } from '../../../src/core/a2a-handler.js';
import { AgentRegistry } from '../../../src/core/agents/agent-registry.js';
import { TaskService, type TaskServiceLimits } from '../../../src/core/tasks/task-service.js';
import type { AgentCard, Message, StreamResponse } from '../../../src/protocol/a2a/types.js';
import { GroupCommitter, openSqliteStore, type SqliteStore } from '../../../src/store/index.js';

export interface Engine {
  service: TaskService;
  store: SqliteStore;
  bus: InProcessEventBus;
  registry: AgentRegistry;
  /** the database file */
  file: string;
  /** the call context of `subject` addressing `agentId` */
  ctx(agentId: string, subject?: string): CallContext;
  /** stops the service (if not yet closed) and removes the database */
  dispose(): Promise<void>;
}

const silent = { info() {}, warn() {}, error() {} };

/** An agent that streams and takes push configs, with the given executor. */
export function agent(execute: (ctx: AgentContext) => Promise<void> | void): AgentDefinition {
  return defineAgent({
    card: { name: 'test', description: 'a test agent', capabilities: { streaming: true, pushNotifications: true }, skills: [] },
    execute,
  });
}

export interface EngineOptions {
  /** the committer the service commits through (a test holding commits subclasses GroupCommitter) */
  committer?: (store: SqliteStore) => GroupCommitter;
  /**
   * A second engine over the same database file and the same bus as that one (two replicas of
   * one deployment, in one process); disposing it leaves the file to its first engine.
   */
  replicaOf?: Engine;
  /** a first engine whose file a replica will share (with replicaOf, implied): its store is told (SqliteStoreOptions.sharedFile) */
  sharedFile?: boolean;
  /** distributed mode (leases, preemption, control signals from other replicas); its lease keeper and sweeper are not started: call service.sweepOrphans() */
  cluster?: ClusterOptions;
  /** the bus the service is given, made from the shared one (a replica's view of it: see test/core/tasks/replica-bus.ts) */
  busView?: (shared: InProcessEventBus) => EventBus;
}

export async function startEngine(agents: Record<string, AgentDefinition>, limits: Partial<TaskServiceLimits> = {}, opts: EngineOptions = {}): Promise<Engine> {
  const { replicaOf } = opts;
  const dir = replicaOf ? undefined : mkdtempSync(join(tmpdir(), 'agentport-engine-'));
  const store = await openSqliteStore({ file: replicaOf ? replicaOf.file : join(dir!, 'agentport.db'), sharedFile: replicaOf !== undefined || opts.sharedFile === true });
  await store.migrate();
  const bus = replicaOf?.bus ?? new InProcessEventBus();
  const committer = opts.committer?.(store) ?? new GroupCommitter(store);
  const ids = Object.keys(agents);
  const registry = new AgentRegistry(ids[0]!);
  for (const id of ids) {
    registry.add({
      id,
      baseUrl: `http://engine.test/a2a/${id}`,
      definition: agents[id]!,
      streaming: true,
      pushNotifications: true,
      extendedCard: false,
      extendedCardRequiresAuth: true,
      supportedExtensions: [],
      requiredExtensions: [],
      publicCard: { defaultInputModes: [] as string[] } as AgentCard,
    });
  }
  const service = new TaskService({
    registry,
    store,
    committer,
    bus: opts.busView?.(bus) ?? bus,
    ...(opts.cluster ? { cluster: opts.cluster } : {}),
    limits: { blockingSendTimeoutMs: 5_000, maxHistoryLength: 100, maxConcurrentStreamsPerTask: 8, ...limits },
    log: silent,
  });
  let closed = false;
  const close = service.close.bind(service);
  service.close = () => ((closed = true), close());
  return {
    service,
    store,
    bus,
    file: replicaOf ? replicaOf.file : join(dir!, 'agentport.db'),
    registry,
    ctx: (agentId, subject = 'alice') => new CallContext(agentId, { subject, authenticated: true, scopes: [] }),
    async dispose() {
      if (!closed) await service.close();
      if (!replicaOf) await bus.close();
      await store.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

let n = 0;
export function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return { messageId: `m-${process.pid}-${++n}`, role: 'ROLE_USER', parts: [{ text }], ...extra };
}

/** Reads a stream to its end. */
export async function collect(stream: AsyncIterable<StreamItem>): Promise<StreamItem[]> {
  const out: StreamItem[] = [];
  for await (const item of stream) out.push(item);
  return out;
}

/** One stream item in a line: its kind and state, for order assertions. */
export function describe(r: StreamResponse): string {
  if ('task' in r) return `task:${r.task.status.state}`;
  if ('statusUpdate' in r) return `status:${r.statusUpdate.status.state}`;
  if ('artifactUpdate' in r) return `artifact:${r.artifactUpdate.artifact.parts.map((p) => p.text ?? '').join('')}`;
  return 'message';
}

/** The text of a message's parts. */
export function textOf(m: { parts: Array<{ text?: string }> } | undefined): string {
  return (m?.parts ?? []).map((p) => p.text ?? '').join('');
}

/** Waits until `check` holds (polling), or fails naming `what`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
