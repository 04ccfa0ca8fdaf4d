/**
 * The A2A v0.1.0 JSON-RPC wire model (specification/json/a2a.json at tag v0.1.0), output side:
 * what Agentport writes to v0.1 clients. Input is validated field by field in each concept's file.
 */
import type { JsonObject } from '../a2a/types.js';

/** v0.1 had no `rejected` or `auth-required`. */
export type V01TaskState = 'submitted' | 'working' | 'input-required' | 'completed' | 'canceled' | 'failed' | 'unknown';
export type V01Role = 'user' | 'agent';

export interface V01TextPart {
  type: 'text';
  text: string;
  metadata?: JsonObject;
}
export interface V01FilePart {
  type: 'file';
  file: { name?: string; mimeType?: string; bytes?: string; uri?: string };
  metadata?: JsonObject;
}
export interface V01DataPart {
  type: 'data';
  data: JsonObject;
  metadata?: JsonObject;
}
export type V01Part = V01TextPart | V01FilePart | V01DataPart;

/** v0.1 messages had no id, task or context of their own. */
export interface V01Message {
  role: V01Role;
  parts: V01Part[];
  metadata?: JsonObject;
}

export interface V01TaskStatus {
  state: V01TaskState;
  message?: V01Message;
  timestamp?: string;
}

/** v0.1 artifacts were identified by their `index` in the task, not by an id. */
export interface V01Artifact {
  name?: string;
  description?: string;
  parts: V01Part[];
  index: number;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: JsonObject;
}

export interface V01Task {
  id: string;
  sessionId?: string;
  status: V01TaskStatus;
  artifacts?: V01Artifact[];
  history?: V01Message[];
  metadata?: JsonObject;
}

export interface V01TaskStatusUpdateEvent {
  id: string;
  status: V01TaskStatus;
  final: boolean;
  metadata?: JsonObject;
}

export interface V01TaskArtifactUpdateEvent {
  id: string;
  artifact: V01Artifact;
  metadata?: JsonObject;
}

export type V01StreamResult = V01TaskStatusUpdateEvent | V01TaskArtifactUpdateEvent;

export interface V01PushNotificationConfig {
  url: string;
  token?: string;
  authentication?: { schemes: string[]; credentials?: string };
}

export interface V01TaskPushNotificationConfig {
  id: string;
  pushNotificationConfig: V01PushNotificationConfig;
}

export interface V01JsonRpcError {
  code: number;
  message: string;
  data?: JsonObject;
}
