/**
 * A2A v1.0 data model in its ProtoJSON shape (lf.a2a.v1, specification/a2a.proto at v1.0.1).
 * The core speaks exactly these types; legacy wire versions are translated at the edge.
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export const TASK_STATES = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
] as const;
export type TaskState = (typeof TASK_STATES)[number];

/** Proto enum numbers, needed where ProtoJSON input may use integers and by the gRPC codec. */
export const TASK_STATE_NUMBERS: Record<TaskState | 'TASK_STATE_UNSPECIFIED', number> = {
  TASK_STATE_UNSPECIFIED: 0,
  TASK_STATE_SUBMITTED: 1,
  TASK_STATE_WORKING: 2,
  TASK_STATE_COMPLETED: 3,
  TASK_STATE_FAILED: 4,
  TASK_STATE_CANCELED: 5,
  TASK_STATE_INPUT_REQUIRED: 6,
  TASK_STATE_REJECTED: 7,
  TASK_STATE_AUTH_REQUIRED: 8,
};

export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED']);
export const INTERRUPTED_STATES: ReadonlySet<TaskState> = new Set(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED']);
export const isTerminal = (s: TaskState): boolean => TERMINAL_STATES.has(s);
export const isInterrupted = (s: TaskState): boolean => INTERRUPTED_STATES.has(s);

export type Role = 'ROLE_USER' | 'ROLE_AGENT';

/** Exactly one of text | raw | url | data is present (proto oneof `content`). */
export interface Part {
  text?: string;
  /** base64 in JSON */
  raw?: string;
  url?: string;
  data?: JsonValue;
  metadata?: JsonObject;
  filename?: string;
  mediaType?: string;
}

export interface Message {
  messageId: string;
  contextId?: string;
  taskId?: string;
  role: Role;
  parts: Part[];
  metadata?: JsonObject;
  extensions?: string[];
  referenceTaskIds?: string[];
}

export interface TaskStatus {
  state: TaskState;
  message?: Message;
  /** RFC 3339, UTC `Z`, milliseconds */
  timestamp?: string;
}

export interface Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: Part[];
  metadata?: JsonObject;
  extensions?: string[];
}

export interface Task {
  id: string;
  contextId: string;
  status: TaskStatus;
  artifacts?: Artifact[];
  history?: Message[];
  metadata?: JsonObject;
}

export interface TaskStatusUpdateEvent {
  taskId: string;
  contextId: string;
  status: TaskStatus;
  metadata?: JsonObject;
}

export interface TaskArtifactUpdateEvent {
  taskId: string;
  contextId: string;
  artifact: Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: JsonObject;
}

/** proto StreamResponse: exactly one key. */
export type StreamResponse = { task: Task } | { message: Message } | { statusUpdate: TaskStatusUpdateEvent } | { artifactUpdate: TaskArtifactUpdateEvent };

export type SendMessageResponse = { task: Task } | { message: Message };

export interface AuthenticationInfo {
  scheme: string;
  credentials?: string;
}

export interface TaskPushNotificationConfig {
  tenant?: string;
  id?: string;
  taskId?: string;
  url: string;
  token?: string;
  authentication?: AuthenticationInfo;
}

export interface SendMessageConfiguration {
  acceptedOutputModes?: string[];
  taskPushNotificationConfig?: TaskPushNotificationConfig;
  historyLength?: number;
  returnImmediately?: boolean;
}

export interface SendMessageRequest {
  tenant?: string;
  message: Message;
  configuration?: SendMessageConfiguration;
  metadata?: JsonObject;
}

export interface GetTaskRequest {
  tenant?: string;
  id: string;
  historyLength?: number;
}

export interface ListTasksRequest {
  tenant?: string;
  contextId?: string;
  status?: TaskState;
  pageSize?: number;
  pageToken?: string;
  historyLength?: number;
  /** RFC 3339 */
  statusTimestampAfter?: string;
  includeArtifacts?: boolean;
}

export interface ListTasksResponse {
  tasks: Task[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

export interface CancelTaskRequest {
  tenant?: string;
  id: string;
  metadata?: JsonObject;
}

export interface SubscribeToTaskRequest {
  tenant?: string;
  id: string;
}

export interface TaskPushConfigRef {
  tenant?: string;
  taskId: string;
  id: string;
}

export interface ListTaskPushNotificationConfigsRequest {
  tenant?: string;
  taskId: string;
  pageSize?: number;
  pageToken?: string;
}

export interface ListTaskPushNotificationConfigsResponse {
  configs: TaskPushNotificationConfig[];
  nextPageToken: string;
}

// ---- Agent card ----

export interface AgentInterface {
  url: string;
  protocolBinding: 'JSONRPC' | 'GRPC' | 'HTTP+JSON' | string;
  tenant?: string;
  protocolVersion: string;
}

export interface AgentProvider {
  url: string;
  organization: string;
}

export interface AgentExtension {
  uri: string;
  description?: string;
  required?: boolean;
  params?: JsonObject;
}

export interface AgentCapabilities {
  streaming?: boolean;
  pushNotifications?: boolean;
  extensions?: AgentExtension[];
  extendedAgentCard?: boolean;
}

export interface SecurityRequirement {
  schemes: Record<string, { list: string[] }>;
}

export type SecurityScheme =
  | { apiKeySecurityScheme: { description?: string; location: 'query' | 'header' | 'cookie'; name: string } }
  | { httpAuthSecurityScheme: { description?: string; scheme: string; bearerFormat?: string } }
  | { oauth2SecurityScheme: { description?: string; flows: JsonObject; oauth2MetadataUrl?: string } }
  | { openIdConnectSecurityScheme: { description?: string; openIdConnectUrl: string } }
  | { mtlsSecurityScheme: { description?: string } };

export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  inputModes?: string[];
  outputModes?: string[];
  securityRequirements?: SecurityRequirement[];
}

export interface AgentCardSignature {
  protected: string;
  signature: string;
  header?: JsonObject;
}

export interface AgentCard {
  name: string;
  description: string;
  supportedInterfaces: AgentInterface[];
  provider?: AgentProvider;
  version: string;
  documentationUrl?: string;
  capabilities: AgentCapabilities;
  securitySchemes?: Record<string, SecurityScheme>;
  securityRequirements?: SecurityRequirement[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkill[];
  signatures?: AgentCardSignature[];
  iconUrl?: string;
}
