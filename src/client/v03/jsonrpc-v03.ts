/**
 * A2A v0.3 JSON-RPC: slash methods, `kind`-tagged payloads, bare results, `X-A2A-Extensions`.
 * v0.3 has no ListTasks: it fails locally with UnsupportedOperation rather than reaching the server.
 */
import { A2AClientError } from '../errors.js';
import type { HttpOptions } from '../http.js';
import { asAgentCard } from '../responses.js';
import type { CallOptions, StreamEvent, SubscribeOptions, Transport } from '../transport.js';
import { jsonRpcCall, jsonRpcStream, type JsonRpcEndpoint } from '../transports/jsonrpc-wire.js';
import { agentCardFromV03, isV03Card } from './card.js';
import { pushConfigToV03, sendParamsToV03 } from './requests.js';
import { fromV03, pushConfigFromV03, sendResponseFromV03, streamResponseFromV03, taskFromV03 } from './results.js';

export const noListTasksInV03 = (): A2AClientError => new A2AClientError('ListTasks does not exist in A2A v0.3; this agent offers only v0.3 interfaces', { reason: 'UNSUPPORTED_OPERATION' });

export function jsonRpcV03Transport(url: string, http: HttpOptions): Transport {
  const ep: JsonRpcEndpoint = { http, url, version: '0.3', extensionsHeader: 'X-A2A-Extensions' };
  const call = (method: string, params: unknown, o?: CallOptions) => jsonRpcCall(ep, method, params, o);
  async function* stream(method: string, params: unknown, o: SubscribeOptions = {}): AsyncGenerator<StreamEvent> {
    for await (const ev of jsonRpcStream(ep, method, params, o)) yield { response: streamResponseFromV03(ev.result), ...(ev.id === undefined ? {} : { id: ev.id }) };
  }
  return {
    binding: 'JSONRPC',
    protocolVersion: '0.3',
    url,
    sendMessage: async (req, o) => sendResponseFromV03(await call('message/send', sendParamsToV03(req), o)),
    sendStreamingMessage: (req, o) => stream('message/stream', sendParamsToV03(req), o),
    getTask: async (req, o) => fromV03(async () => taskFromV03(await call('tasks/get', { id: req.id, ...(req.historyLength === undefined ? {} : { historyLength: req.historyLength }) }, o))),
    listTasks: async () => {
      throw noListTasksInV03();
    },
    cancelTask: async (req, o) => fromV03(async () => taskFromV03(await call('tasks/cancel', { id: req.id, ...(req.metadata ? { metadata: req.metadata } : {}) }, o))),
    subscribeToTask: (req, o) => stream('tasks/resubscribe', { id: req.id }, o),
    createTaskPushNotificationConfig: async (c, o) => pushConfigFromV03(await call('tasks/pushNotificationConfig/set', pushConfigToV03(c), o)),
    getTaskPushNotificationConfig: async (ref, o) => pushConfigFromV03(await call('tasks/pushNotificationConfig/get', { id: ref.taskId, pushNotificationConfigId: ref.id }, o)),
    listTaskPushNotificationConfigs: async (req, o) => {
      const result = await call('tasks/pushNotificationConfig/list', { id: req.taskId }, o);
      return { configs: (Array.isArray(result) ? result : []).map(pushConfigFromV03), nextPageToken: '' };
    },
    deleteTaskPushNotificationConfig: async (ref, o) => void (await call('tasks/pushNotificationConfig/delete', { id: ref.taskId, pushNotificationConfigId: ref.id }, o)),
    getExtendedAgentCard: async (o) => {
      const card = await call('agent/getAuthenticatedExtendedCard', undefined, o);
      return isV03Card(card) ? agentCardFromV03(card) : asAgentCard(card);
    },
    close() {},
  };
}
