/** A2A v1.0 HTTP+JSON (spec §11): the proto's `google.api.http` routes, tenant as a path prefix. */
import type { ListTasksRequest } from '../../protocol/a2a/types.js';
import type { HttpOptions } from '../http.js';
import { asAgentCard, asListTasksResponse, asPushConfig, asPushConfigList, asSendMessageResponse, asStreamResponse, asTask } from '../responses.js';
import type { StreamEvent, Transport } from '../transport.js';
import { restCall, restStream, type RestEndpoint } from './rest-wire.js';

const enc = encodeURIComponent;

/** Request fields that travel in the path are removed from the body. */
function without<T extends object, K extends keyof T>(obj: T, ...keys: K[]): Omit<T, K> {
  const out = { ...obj };
  for (const k of keys) delete out[k];
  return out;
}

export function restTransport(url: string, http: HttpOptions, tenant?: string): Transport {
  const base = tenant ? `${url.replace(/\/+$/, '')}/${enc(tenant)}` : url;
  const ep: RestEndpoint = { http, base, version: '1.0' };
  async function* stream(source: AsyncGenerator<{ data: unknown; id?: string }>): AsyncGenerator<StreamEvent> {
    for await (const ev of source) yield { response: asStreamResponse(ev.data), ...(ev.id === undefined ? {} : { id: ev.id }) };
  }
  const listQuery = (r: ListTasksRequest) => ({
    contextId: r.contextId,
    status: r.status,
    pageSize: r.pageSize,
    pageToken: r.pageToken,
    historyLength: r.historyLength,
    statusTimestampAfter: r.statusTimestampAfter,
    includeArtifacts: r.includeArtifacts,
  });
  return {
    binding: 'HTTP+JSON',
    protocolVersion: '1.0',
    url,
    sendMessage: async (req, o) => asSendMessageResponse(await restCall(ep, { method: 'POST', path: '/message:send', body: without(req, 'tenant'), ...o })),
    sendStreamingMessage: (req, o) => stream(restStream(ep, { method: 'POST', path: '/message:stream', body: without(req, 'tenant'), ...o })),
    getTask: async (req, o) => asTask(await restCall(ep, { method: 'GET', path: `/tasks/${enc(req.id)}`, query: { historyLength: req.historyLength }, ...o })),
    listTasks: async (req, o) => asListTasksResponse(await restCall(ep, { method: 'GET', path: '/tasks', query: listQuery(req), ...o })),
    cancelTask: async (req, o) => asTask(await restCall(ep, { method: 'POST', path: `/tasks/${enc(req.id)}:cancel`, body: req.metadata ? { metadata: req.metadata } : {}, ...o })),
    subscribeToTask: (req, o = {}) => stream(restStream(ep, { method: 'GET', path: `/tasks/${enc(req.id)}:subscribe`, ...o }, true)),
    createTaskPushNotificationConfig: async (c, o) => asPushConfig(await restCall(ep, { method: 'POST', path: `/tasks/${enc(c.taskId ?? '')}/pushNotificationConfigs`, body: without(c, 'tenant'), ...o })),
    getTaskPushNotificationConfig: async (ref, o) => asPushConfig(await restCall(ep, { method: 'GET', path: `/tasks/${enc(ref.taskId)}/pushNotificationConfigs/${enc(ref.id)}`, ...o })),
    listTaskPushNotificationConfigs: async (req, o) =>
      asPushConfigList(await restCall(ep, { method: 'GET', path: `/tasks/${enc(req.taskId)}/pushNotificationConfigs`, query: { pageSize: req.pageSize, pageToken: req.pageToken }, ...o })),
    deleteTaskPushNotificationConfig: async (ref, o) => void (await restCall(ep, { method: 'DELETE', path: `/tasks/${enc(ref.taskId)}/pushNotificationConfigs/${enc(ref.id)}`, ...o })),
    getExtendedAgentCard: async (o) => asAgentCard(await restCall(ep, { method: 'GET', path: '/extendedAgentCard', ...o })),
    close() {},
  };
}
