/** A2A v1.0 JSON-RPC (spec §9): PascalCase methods, ProtoJSON params, `tenant` in params. */
import type { SendMessageRequest } from '../../protocol/a2a/types.js';
import type { HttpOptions } from '../http.js';
import { asAgentCard, asListTasksResponse, asPushConfig, asPushConfigList, asSendMessageResponse, asStreamResponse, asTask } from '../responses.js';
import type { CallOptions, StreamEvent, SubscribeOptions, Transport } from '../transport.js';
import { jsonRpcCall, jsonRpcStream, type JsonRpcEndpoint } from './jsonrpc-wire.js';

export function jsonRpcTransport(url: string, http: HttpOptions, tenant?: string): Transport {
  const ep: JsonRpcEndpoint = { http, url, version: '1.0' };
  const withTenant = <T extends object>(p: T): T => (tenant ? { ...p, tenant } : p);
  const call = (method: string, params: object | undefined, o?: CallOptions) => jsonRpcCall(ep, method, params === undefined ? (tenant ? { tenant } : undefined) : withTenant(params), o);
  async function* stream(method: string, params: object, o: SubscribeOptions = {}): AsyncGenerator<StreamEvent> {
    for await (const ev of jsonRpcStream(ep, method, withTenant(params), o)) yield { response: asStreamResponse(ev.result), ...(ev.id === undefined ? {} : { id: ev.id }) };
  }
  return {
    binding: 'JSONRPC',
    protocolVersion: '1.0',
    url,
    sendMessage: async (req: SendMessageRequest, o) => asSendMessageResponse(await call('SendMessage', req, o)),
    sendStreamingMessage: (req, o) => stream('SendStreamingMessage', req, o),
    getTask: async (req, o) => asTask(await call('GetTask', req, o)),
    listTasks: async (req, o) => asListTasksResponse(await call('ListTasks', req, o)),
    cancelTask: async (req, o) => asTask(await call('CancelTask', req, o)),
    subscribeToTask: (req, o) => stream('SubscribeToTask', req, o),
    createTaskPushNotificationConfig: async (c, o) => asPushConfig(await call('CreateTaskPushNotificationConfig', c, o)),
    getTaskPushNotificationConfig: async (ref, o) => asPushConfig(await call('GetTaskPushNotificationConfig', ref, o)),
    listTaskPushNotificationConfigs: async (req, o) => asPushConfigList(await call('ListTaskPushNotificationConfigs', req, o)),
    deleteTaskPushNotificationConfig: async (ref, o) => void (await call('DeleteTaskPushNotificationConfig', ref, o)),
    getExtendedAgentCard: async (o) => asAgentCard(await call('GetExtendedAgentCard', undefined, o)),
    close() {},
  };
}
