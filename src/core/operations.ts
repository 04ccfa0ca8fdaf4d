/**
 * The eleven A2A operations, described once: the method name the spec gives each (the JSON-RPC
 * method, the gRPC method, the usage record's and the span's name), the handler method that runs
 * it, the authorization action it needs, whether it answers with a stream, and whether it may
 * create a task (what quotas hold a concurrent-task slot and a budget for). Authorization,
 * tracing, quotas, the gRPC admission and the JSON-RPC binding all read this table, so adding or
 * renaming an operation is one edit here (issue 26).
 */
import type { Action } from './authz/policy.js';

/** The A2A v1.0 method names (specification §9 and a2a.proto). */
export type OperationName =
  | 'SendMessage'
  | 'SendStreamingMessage'
  | 'GetTask'
  | 'ListTasks'
  | 'CancelTask'
  | 'SubscribeToTask'
  | 'CreateTaskPushNotificationConfig'
  | 'GetTaskPushNotificationConfig'
  | 'ListTaskPushNotificationConfigs'
  | 'DeleteTaskPushNotificationConfig'
  | 'GetExtendedAgentCard';

/** The A2AHandler method of each operation (core/a2a-handler.ts). */
export type OperationMethod =
  | 'sendMessage'
  | 'sendStreamingMessage'
  | 'getTask'
  | 'listTasks'
  | 'cancelTask'
  | 'subscribeToTask'
  | 'createTaskPushNotificationConfig'
  | 'getTaskPushNotificationConfig'
  | 'listTaskPushNotificationConfigs'
  | 'deleteTaskPushNotificationConfig'
  | 'getExtendedAgentCard';

export interface Operation {
  name: OperationName;
  method: OperationMethod;
  /** what the authorization policy is asked for */
  action: Action;
  /** answered with a stream (SSE, a gRPC server stream) rather than one result */
  stream: boolean;
  /** may create a task: quotas count it against budgets and concurrent tasks */
  createsTask: boolean;
}

const op = (name: OperationName, method: OperationMethod, action: Action, stream = false, createsTask = false): Operation => ({ name, method, action, stream, createsTask });

export const OPERATIONS: readonly Operation[] = [
  op('SendMessage', 'sendMessage', 'send-message', false, true),
  op('SendStreamingMessage', 'sendStreamingMessage', 'send-message', true, true),
  op('GetTask', 'getTask', 'read-tasks'),
  op('ListTasks', 'listTasks', 'read-tasks'),
  op('CancelTask', 'cancelTask', 'cancel-task'),
  op('SubscribeToTask', 'subscribeToTask', 'read-tasks', true),
  op('CreateTaskPushNotificationConfig', 'createTaskPushNotificationConfig', 'manage-push-configs'),
  op('GetTaskPushNotificationConfig', 'getTaskPushNotificationConfig', 'manage-push-configs'),
  op('ListTaskPushNotificationConfigs', 'listTaskPushNotificationConfigs', 'manage-push-configs'),
  op('DeleteTaskPushNotificationConfig', 'deleteTaskPushNotificationConfig', 'manage-push-configs'),
  op('GetExtendedAgentCard', 'getExtendedAgentCard', 'read-extended-card'),
];

/** Each operation by its A2A method name. */
export const OPERATION_BY_NAME: ReadonlyMap<string, Operation> = new Map(OPERATIONS.map((o) => [o.name, o]));

/** Each operation by its handler method. */
export const OPERATION_BY_METHOD = Object.fromEntries(OPERATIONS.map((o) => [o.method, o])) as Readonly<Record<OperationMethod, Operation>>;
