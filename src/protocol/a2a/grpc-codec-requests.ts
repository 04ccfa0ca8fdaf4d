/**
 * The lf.a2a.v1 request messages and list responses between ProtoJSON and proto-loader objects.
 * Request decoders are the gRPC binding's trust boundary: they check REQUIRED fields and presence.
 */
import { invalidParams } from './errors.js';
import { decodeMessage, decodeTask, decodeTaskPushNotificationConfig, encodeMessage, encodeTask, encodeTaskPushNotificationConfig } from './grpc-codec-objects.js';
import { decodeEnum, decodeTimestamp, encodeOptStruct, encodeTimestamp, optList, optNonZero, optString, optStruct, optTrue, prune, requiredMessage, requiredString } from './grpc-codec-wkt.js';
import type {
  WireCancelTaskRequest,
  WireGetExtendedAgentCardRequest,
  WireGetTaskRequest,
  WireListTaskPushNotificationConfigsRequest,
  WireListTaskPushNotificationConfigsResponse,
  WireListTasksRequest,
  WireListTasksResponse,
  WireSendMessageConfiguration,
  WireSendMessageRequest,
  WireSubscribeToTaskRequest,
  WireTaskPushConfigRef,
  WireTaskPushNotificationConfig,
} from './grpc-codec-wire.js';
import {
  TASK_STATE_NUMBERS,
  type CancelTaskRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsRequest,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksRequest,
  type ListTasksResponse,
  type SendMessageConfiguration,
  type SendMessageRequest,
  type SubscribeToTaskRequest,
  type TaskPushConfigRef,
  type TaskPushNotificationConfig,
  type TaskState,
} from './types.js';

// ---- Requests ----

function optHistoryLength(v: number | undefined, field: string): number | undefined {
  if (v !== undefined && v < 0) throw invalidParams(field, 'must not be negative');
  return v;
}

function decodeSendMessageConfiguration(w: WireSendMessageConfiguration, field: string): SendMessageConfiguration {
  const push = w.taskPushNotificationConfig;
  return prune({
    acceptedOutputModes: optList(w.acceptedOutputModes),
    taskPushNotificationConfig: push ? decodeTaskPushNotificationConfig(push, `${field}.taskPushNotificationConfig`) : undefined,
    historyLength: optHistoryLength(w.historyLength, `${field}.historyLength`),
    returnImmediately: optTrue(w.returnImmediately),
  });
}

export function decodeSendMessageRequest(w: WireSendMessageRequest): SendMessageRequest {
  return prune({
    tenant: optString(w.tenant),
    message: decodeMessage(requiredMessage(w.message, 'message'), 'message'),
    configuration: w.configuration ? decodeSendMessageConfiguration(w.configuration, 'configuration') : undefined,
    metadata: optStruct(w.metadata, 'metadata'),
  });
}

export function encodeSendMessageRequest(r: SendMessageRequest): WireSendMessageRequest {
  const c = r.configuration;
  return prune({
    tenant: r.tenant,
    message: encodeMessage(r.message),
    configuration: c
      ? prune({
          acceptedOutputModes: c.acceptedOutputModes,
          taskPushNotificationConfig: c.taskPushNotificationConfig ? encodeTaskPushNotificationConfig(c.taskPushNotificationConfig) : undefined,
          historyLength: c.historyLength,
          returnImmediately: c.returnImmediately,
        })
      : undefined,
    metadata: encodeOptStruct(r.metadata, 'metadata'),
  });
}

export function decodeGetTaskRequest(w: WireGetTaskRequest): GetTaskRequest {
  return prune({ tenant: optString(w.tenant), id: requiredString(w.id, 'id'), historyLength: optHistoryLength(w.historyLength, 'historyLength') });
}

export const encodeGetTaskRequest = (r: GetTaskRequest): WireGetTaskRequest => prune({ tenant: r.tenant, id: r.id, historyLength: r.historyLength });

export function decodeListTasksRequest(w: WireListTasksRequest): ListTasksRequest {
  return prune({
    tenant: optString(w.tenant),
    contextId: optString(w.contextId),
    status: decodeEnum<TaskState>(w.status, TASK_STATE_NUMBERS, 'status'),
    pageSize: w.pageSize,
    pageToken: optString(w.pageToken),
    historyLength: optHistoryLength(w.historyLength, 'historyLength'),
    statusTimestampAfter: w.statusTimestampAfter ? decodeTimestamp(w.statusTimestampAfter, 'statusTimestampAfter') : undefined,
    includeArtifacts: w.includeArtifacts,
  });
}

export function encodeListTasksRequest(r: ListTasksRequest): WireListTasksRequest {
  return prune({
    tenant: r.tenant,
    contextId: r.contextId,
    status: r.status,
    pageSize: r.pageSize,
    pageToken: r.pageToken,
    historyLength: r.historyLength,
    statusTimestampAfter: r.statusTimestampAfter === undefined ? undefined : encodeTimestamp(r.statusTimestampAfter, 'statusTimestampAfter'),
    includeArtifacts: r.includeArtifacts,
  });
}

export function decodeListTasksResponse(w: WireListTasksResponse): ListTasksResponse {
  return {
    tasks: (w.tasks ?? []).map((t, i) => decodeTask(t, `tasks[${i}]`)),
    nextPageToken: w.nextPageToken ?? '',
    pageSize: w.pageSize ?? 0,
    totalSize: w.totalSize ?? 0,
  };
}

export function encodeListTasksResponse(r: ListTasksResponse): WireListTasksResponse {
  return { tasks: r.tasks.map((t, i) => encodeTask(t, `tasks[${i}]`)), nextPageToken: r.nextPageToken, pageSize: r.pageSize, totalSize: r.totalSize };
}

export function decodeCancelTaskRequest(w: WireCancelTaskRequest): CancelTaskRequest {
  return prune({ tenant: optString(w.tenant), id: requiredString(w.id, 'id'), metadata: optStruct(w.metadata, 'metadata') });
}

export const encodeCancelTaskRequest = (r: CancelTaskRequest): WireCancelTaskRequest => prune({ tenant: r.tenant, id: r.id, metadata: encodeOptStruct(r.metadata, 'metadata') });

export const decodeSubscribeToTaskRequest = (w: WireSubscribeToTaskRequest): SubscribeToTaskRequest => prune({ tenant: optString(w.tenant), id: requiredString(w.id, 'id') });

export const encodeSubscribeToTaskRequest = (r: SubscribeToTaskRequest): WireSubscribeToTaskRequest => prune({ tenant: r.tenant, id: r.id });

/** CreateTaskPushNotificationConfig's request is the config itself; on gRPC it must name its task. */
export function decodeCreateTaskPushNotificationConfigRequest(w: WireTaskPushNotificationConfig): TaskPushNotificationConfig {
  requiredString(w.taskId, 'taskId');
  return decodeTaskPushNotificationConfig(w, 'config');
}

/** Get- and DeleteTaskPushNotificationConfigRequest. */
export const decodeTaskPushConfigRef = (w: WireTaskPushConfigRef): TaskPushConfigRef => prune({ tenant: optString(w.tenant), taskId: requiredString(w.taskId, 'taskId'), id: requiredString(w.id, 'id') });

export const encodeTaskPushConfigRef = (r: TaskPushConfigRef): WireTaskPushConfigRef => prune({ tenant: r.tenant, taskId: r.taskId, id: r.id });

export function decodeListTaskPushNotificationConfigsRequest(w: WireListTaskPushNotificationConfigsRequest): ListTaskPushNotificationConfigsRequest {
  return prune({
    tenant: optString(w.tenant),
    taskId: requiredString(w.taskId, 'taskId'),
    pageSize: optNonZero(w.pageSize),
    pageToken: optString(w.pageToken),
  });
}

export const encodeListTaskPushNotificationConfigsRequest = (r: ListTaskPushNotificationConfigsRequest): WireListTaskPushNotificationConfigsRequest =>
  prune({ tenant: r.tenant, taskId: r.taskId, pageSize: r.pageSize, pageToken: r.pageToken });

export const decodeGetExtendedAgentCardRequest = (w: WireGetExtendedAgentCardRequest): { tenant?: string } => prune({ tenant: optString(w.tenant) });

// ---- List responses ----

export function decodeListTaskPushNotificationConfigsResponse(w: WireListTaskPushNotificationConfigsResponse): ListTaskPushNotificationConfigsResponse {
  return {
    configs: (w.configs ?? []).map((c, i) => decodeTaskPushNotificationConfig(c, `configs[${i}]`)),
    nextPageToken: w.nextPageToken ?? '',
  };
}

export function encodeListTaskPushNotificationConfigsResponse(r: ListTaskPushNotificationConfigsResponse): WireListTaskPushNotificationConfigsResponse {
  return { configs: r.configs.map(encodeTaskPushNotificationConfig), nextPageToken: r.nextPageToken };
}
