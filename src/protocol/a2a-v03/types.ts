/**
 * The A2A v0.3.0 JSON-RPC wire model (specification/json/a2a.json at tag v0.3.0), output side only:
 * what Agentport writes to v0.3 clients. Input is validated field by field in each concept's file.
 */
import type { JsonObject } from '../a2a/types.js';

export const V03_TASK_STATES = ['submitted', 'working', 'input-required', 'completed', 'canceled', 'failed', 'rejected', 'auth-required', 'unknown'] as const;
export type V03TaskState = (typeof V03_TASK_STATES)[number];
export type V03Role = 'user' | 'agent';

export interface V03TextPart {
  kind: 'text';
  text: string;
  metadata?: JsonObject;
}
export interface V03FileWithBytes {
  bytes: string;
  name?: string;
  mimeType?: string;
}
export interface V03FileWithUri {
  uri: string;
  name?: string;
  mimeType?: string;
}
export interface V03FilePart {
  kind: 'file';
  file: V03FileWithBytes | V03FileWithUri;
  metadata?: JsonObject;
}
export interface V03DataPart {
  kind: 'data';
  data: JsonObject;
  metadata?: JsonObject;
}
export type V03Part = V03TextPart | V03FilePart | V03DataPart;

export interface V03Message {
  kind: 'message';
  messageId: string;
  role: V03Role;
  parts: V03Part[];
  contextId?: string;
  taskId?: string;
  metadata?: JsonObject;
  extensions?: string[];
  referenceTaskIds?: string[];
}

export interface V03TaskStatus {
  state: V03TaskState;
  message?: V03Message;
  timestamp?: string;
}

export interface V03Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: V03Part[];
  metadata?: JsonObject;
  extensions?: string[];
}

export interface V03Task {
  kind: 'task';
  id: string;
  contextId: string;
  status: V03TaskStatus;
  artifacts?: V03Artifact[];
  history?: V03Message[];
  metadata?: JsonObject;
}

export interface V03TaskStatusUpdateEvent {
  kind: 'status-update';
  taskId: string;
  contextId: string;
  status: V03TaskStatus;
  final: boolean;
  metadata?: JsonObject;
}

export interface V03TaskArtifactUpdateEvent {
  kind: 'artifact-update';
  taskId: string;
  contextId: string;
  artifact: V03Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: JsonObject;
}

export type V03StreamResult = V03Task | V03Message | V03TaskStatusUpdateEvent | V03TaskArtifactUpdateEvent;

export interface V03PushNotificationAuthenticationInfo {
  schemes: string[];
  credentials?: string;
}

export interface V03PushNotificationConfig {
  id?: string;
  url: string;
  token?: string;
  authentication?: V03PushNotificationAuthenticationInfo;
}

export interface V03TaskPushNotificationConfig {
  taskId: string;
  pushNotificationConfig: V03PushNotificationConfig;
}

export interface V03JsonRpcError {
  code: number;
  message: string;
  data?: JsonObject;
}
