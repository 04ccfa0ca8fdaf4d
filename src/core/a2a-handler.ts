/**
 * The protocol-neutral A2A operations every binding calls. Bindings decode a request into one of
 * these calls and encode the result; they hold no task logic of their own.
 */
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

export { CallContext, type CallFields, type WireVersion } from './call-context.js';
import type { CallContext } from './call-context.js';

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
