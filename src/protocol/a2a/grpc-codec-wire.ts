/**
 * The plain-object shape of lf.a2a.v1 messages as @grpc/proto-loader hands them to grpc-js when
 * loaded with GRPC_PROTO_LOADER_OPTIONS. Every field is optional: proto3 has no required fields and
 * `defaults: false` leaves unset ones out, so presence is only known for `optional` fields and oneofs.
 */

/**
 * The options the wire shapes below assume. Camel-case names match ProtoJSON; enums arrive as names
 * (unknown numbers stay numbers); int64 (Timestamp.seconds) as number; bytes as Buffer; `oneofs` adds
 * a virtual discriminator key per oneof, including the synthetic `_field` oneofs of proto3 `optional`.
 */
export const GRPC_PROTO_LOADER_OPTIONS = {
  keepCase: false,
  enums: String,
  longs: Number,
  defaults: false,
  oneofs: true,
} as const;

/** An enum as proto-loader gives it: the value name, or the number when the name is unknown. */
export type WireEnum = string | number;
/** `bytes`: Buffer/Uint8Array from proto-loader; a base64 string is accepted by protobufjs on input too. */
export type WireBytes = Uint8Array | string;

export interface WireValue {
  nullValue?: WireEnum;
  numberValue?: number;
  stringValue?: string;
  boolValue?: boolean;
  structValue?: WireStruct;
  listValue?: WireListValue;
  kind?: string;
}
export interface WireStruct {
  fields?: Record<string, WireValue>;
}
export interface WireListValue {
  values?: WireValue[];
}
export interface WireTimestamp {
  seconds?: number | string;
  nanos?: number;
}

export interface WirePart {
  text?: string;
  raw?: WireBytes;
  url?: string;
  data?: WireValue;
  metadata?: WireStruct;
  filename?: string;
  mediaType?: string;
  content?: string;
}

export interface WireMessage {
  messageId?: string;
  contextId?: string;
  taskId?: string;
  role?: WireEnum;
  parts?: WirePart[];
  metadata?: WireStruct;
  extensions?: string[];
  referenceTaskIds?: string[];
}

export interface WireTaskStatus {
  state?: WireEnum;
  message?: WireMessage;
  timestamp?: WireTimestamp;
}

export interface WireArtifact {
  artifactId?: string;
  name?: string;
  description?: string;
  parts?: WirePart[];
  metadata?: WireStruct;
  extensions?: string[];
}

export interface WireTask {
  id?: string;
  contextId?: string;
  status?: WireTaskStatus;
  artifacts?: WireArtifact[];
  history?: WireMessage[];
  metadata?: WireStruct;
}

export interface WireTaskStatusUpdateEvent {
  taskId?: string;
  contextId?: string;
  status?: WireTaskStatus;
  metadata?: WireStruct;
}

export interface WireTaskArtifactUpdateEvent {
  taskId?: string;
  contextId?: string;
  artifact?: WireArtifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: WireStruct;
}

export interface WireStreamResponse {
  task?: WireTask;
  message?: WireMessage;
  statusUpdate?: WireTaskStatusUpdateEvent;
  artifactUpdate?: WireTaskArtifactUpdateEvent;
  payload?: string;
}

export interface WireSendMessageResponse {
  task?: WireTask;
  message?: WireMessage;
  payload?: string;
}

export interface WireAuthenticationInfo {
  scheme?: string;
  credentials?: string;
}

export interface WireTaskPushNotificationConfig {
  tenant?: string;
  id?: string;
  taskId?: string;
  url?: string;
  token?: string;
  authentication?: WireAuthenticationInfo;
}

export interface WireSendMessageConfiguration {
  acceptedOutputModes?: string[];
  taskPushNotificationConfig?: WireTaskPushNotificationConfig;
  historyLength?: number;
  returnImmediately?: boolean;
}

export interface WireSendMessageRequest {
  tenant?: string;
  message?: WireMessage;
  configuration?: WireSendMessageConfiguration;
  metadata?: WireStruct;
}

export interface WireGetTaskRequest {
  tenant?: string;
  id?: string;
  historyLength?: number;
}

export interface WireListTasksRequest {
  tenant?: string;
  contextId?: string;
  status?: WireEnum;
  pageSize?: number;
  pageToken?: string;
  historyLength?: number;
  statusTimestampAfter?: WireTimestamp;
  includeArtifacts?: boolean;
}

export interface WireListTasksResponse {
  tasks?: WireTask[];
  nextPageToken?: string;
  pageSize?: number;
  totalSize?: number;
}

export interface WireCancelTaskRequest {
  tenant?: string;
  id?: string;
  metadata?: WireStruct;
}

export interface WireSubscribeToTaskRequest {
  tenant?: string;
  id?: string;
}

/** Get- and DeleteTaskPushNotificationConfigRequest share this shape. */
export interface WireTaskPushConfigRef {
  tenant?: string;
  taskId?: string;
  id?: string;
}

export interface WireListTaskPushNotificationConfigsRequest {
  tenant?: string;
  taskId?: string;
  pageSize?: number;
  pageToken?: string;
}

export interface WireListTaskPushNotificationConfigsResponse {
  configs?: WireTaskPushNotificationConfig[];
  nextPageToken?: string;
}

export interface WireGetExtendedAgentCardRequest {
  tenant?: string;
}

// ---- Agent card ----

export interface WireAgentInterface {
  url?: string;
  protocolBinding?: string;
  tenant?: string;
  protocolVersion?: string;
}

export interface WireAgentProvider {
  url?: string;
  organization?: string;
}

export interface WireAgentExtension {
  uri?: string;
  description?: string;
  required?: boolean;
  params?: WireStruct;
}

export interface WireAgentCapabilities {
  streaming?: boolean;
  pushNotifications?: boolean;
  extensions?: WireAgentExtension[];
  extendedAgentCard?: boolean;
}

export interface WireStringList {
  list?: string[];
}

export interface WireSecurityRequirement {
  schemes?: Record<string, WireStringList>;
}

export interface WireOAuthFlow {
  authorizationUrl?: string;
  deviceAuthorizationUrl?: string;
  tokenUrl?: string;
  refreshUrl?: string;
  scopes?: Record<string, string>;
  pkceRequired?: boolean;
}

export interface WireOAuthFlows {
  authorizationCode?: WireOAuthFlow;
  clientCredentials?: WireOAuthFlow;
  implicit?: WireOAuthFlow;
  password?: WireOAuthFlow;
  deviceCode?: WireOAuthFlow;
  flow?: string;
}

export interface WireSecurityScheme {
  apiKeySecurityScheme?: { description?: string; location?: string; name?: string };
  httpAuthSecurityScheme?: { description?: string; scheme?: string; bearerFormat?: string };
  oauth2SecurityScheme?: { description?: string; flows?: WireOAuthFlows; oauth2MetadataUrl?: string };
  openIdConnectSecurityScheme?: { description?: string; openIdConnectUrl?: string };
  mtlsSecurityScheme?: { description?: string };
  scheme?: string;
}

export interface WireAgentSkill {
  id?: string;
  name?: string;
  description?: string;
  tags?: string[];
  examples?: string[];
  inputModes?: string[];
  outputModes?: string[];
  securityRequirements?: WireSecurityRequirement[];
}

export interface WireAgentCardSignature {
  protected?: string;
  signature?: string;
  header?: WireStruct;
}

export interface WireAgentCard {
  name?: string;
  description?: string;
  supportedInterfaces?: WireAgentInterface[];
  provider?: WireAgentProvider;
  version?: string;
  documentationUrl?: string;
  capabilities?: WireAgentCapabilities;
  securitySchemes?: Record<string, WireSecurityScheme>;
  securityRequirements?: WireSecurityRequirement[];
  defaultInputModes?: string[];
  defaultOutputModes?: string[];
  skills?: WireAgentSkill[];
  signatures?: WireAgentCardSignature[];
  iconUrl?: string;
}

/** google.protobuf.Empty */
export type WireEmpty = Record<string, never>;
