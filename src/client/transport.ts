/**
 * What every binding adapter (JSON-RPC, HTTP+JSON, gRPC; v1.0 and v0.3) offers: the A2A operations
 * in the v1.0 model of src/protocol/a2a/types.ts. v0.3 adapters translate at their edge, so the rest
 * of the client never sees a v0.3 shape.
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

/** One stream item; `id` is the SSE event id (Agentport: the task event seq) when the binding has one. */
export interface StreamEvent {
  response: StreamResponse;
  id?: string;
}

export interface CallOptions {
  signal?: AbortSignal;
  /**
   * Extra headers for this call only (HTTP bindings; gRPC ignores them), e.g. the `traceparent`
   * of the span the call is made in.
   */
  headers?: Record<string, string>;
}

export interface SubscribeOptions extends CallOptions {
  /** resume after this SSE event id (`Last-Event-ID`); ignored by bindings without event ids */
  lastEventId?: string;
}

export type Binding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

export interface Transport {
  readonly binding: Binding;
  /** Major.Minor, as in the card interface */
  readonly protocolVersion: string;
  readonly url: string;
  sendMessage(req: SendMessageRequest, o?: CallOptions): Promise<SendMessageResponse>;
  sendStreamingMessage(req: SendMessageRequest, o?: CallOptions): AsyncIterable<StreamEvent>;
  getTask(req: GetTaskRequest, o?: CallOptions): Promise<Task>;
  listTasks(req: ListTasksRequest, o?: CallOptions): Promise<ListTasksResponse>;
  cancelTask(req: CancelTaskRequest, o?: CallOptions): Promise<Task>;
  subscribeToTask(req: SubscribeToTaskRequest, o?: SubscribeOptions): AsyncIterable<StreamEvent>;
  createTaskPushNotificationConfig(config: TaskPushNotificationConfig, o?: CallOptions): Promise<TaskPushNotificationConfig>;
  getTaskPushNotificationConfig(ref: TaskPushConfigRef, o?: CallOptions): Promise<TaskPushNotificationConfig>;
  listTaskPushNotificationConfigs(req: ListTaskPushNotificationConfigsRequest, o?: CallOptions): Promise<ListTaskPushNotificationConfigsResponse>;
  deleteTaskPushNotificationConfig(ref: TaskPushConfigRef, o?: CallOptions): Promise<void>;
  getExtendedAgentCard(o?: CallOptions): Promise<AgentCard>;
  close(): void;
}
