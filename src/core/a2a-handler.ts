/**
 * The protocol-neutral A2A operations every binding calls. Bindings decode a request into one of
 * these calls and encode the result; they hold no task logic of their own.
 */
import type { UsageDraft } from './usage/usage-draft.js';
import type {
  AgentCard,
  CancelTaskRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushConfigRef,
  TaskPushNotificationConfig,
} from '../protocol/a2a/types.js';
import type { Principal } from './authz/principal.js';
import type { RegisteredAgent } from './agents/agent-registry.js';
import type { Context } from '../observability/tracing/index.js';

/** The A2A versions a call can arrive in. The core speaks 1.0; the others are translated at the edge (src/bindings/a2a-legacy). */
export type WireVersion = '1.0' | '0.3' | '0.1';

export interface CallContext {
  /** the agent addressed (from the base path, or the `tenant` on shared endpoints) */
  agentId: string;
  principal: Principal;
  /** A2A-Extensions the client asked for */
  requestedExtensions: readonly string[];
  /** aborted when the client goes away (streams) */
  signal?: AbortSignal;
  /**
   * true once the client's connection is gone (it gave up waiting); checked before work starts, so
   * requests queued behind a stall do not run for nobody (issue 19 C4). May answer asynchronously:
   * an HTTP binding first lets the server read what the socket already holds (bindings/connection-gone).
   */
  clientGone?: () => boolean | Promise<boolean>;
  /** `mcp`: an MCP tool call or resource read, authorized under the `mcp:tools…` scopes */
  surface?: 'a2a' | 'mcp';
  /** set by the resolve stage (core/stages/resolve.ts): the agent addressed, looked up once per call */
  agent?: RegisteredAgent;
  /** set by the resolve stage for a message: the skills it is for (the one the agent names, else all of them) */
  skills?: readonly string[];
  /** set by the resolve stage for a message: its one skill, when the agent or an MCP tool call names it (quotas, usage) */
  skill?: string;
  /** set by the authorization layer: the usecases whose data the caller may see (undefined: all) */
  usecases?: readonly string[];
  /**
   * The wire version the call arrived in; absent means 1.0. Only the legacy bindings set another.
   * Push configs remember it, so their webhooks get bodies in the registering client's version.
   */
  wireVersion?: WireVersion;
  /**
   * A task id the client chose before the task exists (v0.1 clients named their tasks): a
   * SendMessage that creates a task creates it under this id instead of a fresh one. Only the v0.1
   * binding sets it.
   */
  clientTaskId?: string;
  /** the call's usage draft, when usage records are on: the core names the operation, agent, skill and task in it */
  usage?: UsageDraft | undefined;
  /**
   * With tracing on, the context of the call's core operation span (set by stages/tracing-a2a-handler.ts):
   * the parent of every span the call opens below (the agent's run, forwarding, a stream). Passed
   * explicitly: no context manager tracks it across awaits (docs/decisions/0018-tracing.md).
   */
  trace?: Context | undefined;
  /**
   * A read or cancel a face makes to finish a call it already made (the MCP tool call's final
   * GetTask, its cancel when the client leaves): quotas counted the call once and do not count this.
   */
  partOfCall?: boolean;
  /**
   * A message another replica received (and authorized) for a task this replica holds, entering
   * here as a local SendMessage does (core/cluster/cluster-router.ts): it is not forwarded again,
   * and its run acts for the caller stored with the task (the forwarded call carries no scopes).
   */
  forwarded?: true;
  /**
   * The face made the message's messageId itself for this call (an MCP tool call): no earlier
   * request can have sent it, so SendMessage idempotency has nothing to find and the store is not
   * asked (a point read per call).
   */
  messageIdMinted?: true;
}

/** Who asks whether an agent exists, and from which surface. */
export interface AgentCaller {
  principal: Principal;
  surface?: 'a2a' | 'mcp';
}

/** One stream item: the StreamResponse and, when it comes from the task's event log, its seq. */
export interface StreamItem {
  seq?: number;
  response: StreamResponse;
}

export interface A2AHandler {
  sendMessage(ctx: CallContext, req: SendMessageRequest): Promise<SendMessageResponse>;
  sendStreamingMessage(ctx: CallContext, req: SendMessageRequest): AsyncIterable<StreamItem>;
  getTask(ctx: CallContext, req: GetTaskRequest): Promise<Task>;
  listTasks(ctx: CallContext, req: ListTasksRequest): Promise<ListTasksResponse>;
  cancelTask(ctx: CallContext, req: CancelTaskRequest): Promise<Task>;
  /** `lastEventId`: replay events after this seq from the log before going live (Agentport extension). */
  subscribeToTask(ctx: CallContext, req: SubscribeToTaskRequest, lastEventId?: number): AsyncIterable<StreamItem>;
  createTaskPushNotificationConfig(ctx: CallContext, config: TaskPushNotificationConfig): Promise<TaskPushNotificationConfig>;
  getTaskPushNotificationConfig(ctx: CallContext, ref: TaskPushConfigRef): Promise<TaskPushNotificationConfig>;
  listTaskPushNotificationConfigs(ctx: CallContext, req: ListTaskPushNotificationConfigsRequest): Promise<ListTaskPushNotificationConfigsResponse>;
  deleteTaskPushNotificationConfig(ctx: CallContext, ref: TaskPushConfigRef): Promise<void>;
  getExtendedAgentCard(ctx: CallContext): Promise<AgentCard>;
  /** Extensions this agent declares as required (ExtensionSupportRequired when not activated). */
  agentExtensions(agentId: string): { supported: readonly string[]; required: readonly string[] } | undefined;
  /**
   * Whether an agent id exists; with `caller`, whether it exists for that caller (an agent it may
   * not see does not). Bindings answer unknown tenants with `unknownTenant` (core/authz).
   */
  hasAgent(agentId: string, caller?: AgentCaller): boolean;
}
