/**
 * A2A v0.3 HTTP+JSON: the v0.3 proto's routes under `/v1/`, bodies in the v0.3 proto's JSON form
 * (what a2a-python's v0.3 REST, a2a-js's LegacyRestTransport and Agentport speak).
 */
import type { HttpOptions } from '../http.js';
import { isObject } from '../http.js';
import { asAgentCard } from '../responses.js';
import type { StreamEvent, Transport } from '../transport.js';
import { restCall, restStream, type RestEndpoint } from '../transports/rest-wire.js';
import { agentCardFromV03, isV03Card } from './card.js';
import { noListTasksInV03 } from './jsonrpc-v03.js';
import { sendBodyToV03Proto } from './requests.js';
import { fromV03, pushConfigFromV03, sendResponseFromV03, streamResponseFromV03, taskFromV03 } from './results.js';
import { pushNotificationConfigFromV1 } from '../../protocol/a2a-v03/push.js';

const enc = encodeURIComponent;

export function restV03Transport(url: string, http: HttpOptions): Transport {
  const ep: RestEndpoint = { http, base: `${url.replace(/\/+$/, '')}/v1`, version: '0.3', extensionsHeader: 'X-A2A-Extensions' };
  async function* stream(source: AsyncGenerator<{ data: unknown; id?: string }>): AsyncGenerator<StreamEvent> {
    for await (const ev of source) yield { response: streamResponseFromV03(ev.data), ...(ev.id === undefined ? {} : { id: ev.id }) };
  }
  return {
    binding: 'HTTP+JSON',
    protocolVersion: '0.3',
    url,
    sendMessage: async (req, o) => sendResponseFromV03(await restCall(ep, { method: 'POST', path: '/message:send', body: sendBodyToV03Proto(req), ...o })),
    sendStreamingMessage: (req, o) => stream(restStream(ep, { method: 'POST', path: '/message:stream', body: sendBodyToV03Proto(req), ...o })),
    getTask: async (req, o) => fromV03(async () => taskFromV03(await restCall(ep, { method: 'GET', path: `/tasks/${enc(req.id)}`, query: { historyLength: req.historyLength }, ...o }))),
    listTasks: async () => {
      throw noListTasksInV03();
    },
    cancelTask: async (req, o) => fromV03(async () => taskFromV03(await restCall(ep, { method: 'POST', path: `/tasks/${enc(req.id)}:cancel`, body: {}, ...o }))),
    subscribeToTask: (req, o = {}) => stream(restStream(ep, { method: 'GET', path: `/tasks/${enc(req.id)}:subscribe`, ...o }, true)),
    createTaskPushNotificationConfig: async (c, o) => {
      const taskId = c.taskId ?? '';
      const body = { name: `tasks/${taskId}/pushNotificationConfigs/${c.id ?? ''}`, pushNotificationConfig: pushNotificationConfigFromV1(c) };
      return pushConfigFromV03(await restCall(ep, { method: 'POST', path: `/tasks/${enc(taskId)}/pushNotificationConfigs`, body, ...o }));
    },
    getTaskPushNotificationConfig: async (ref, o) => pushConfigFromV03(await restCall(ep, { method: 'GET', path: `/tasks/${enc(ref.taskId)}/pushNotificationConfigs/${enc(ref.id)}`, ...o })),
    listTaskPushNotificationConfigs: async (req, o) => {
      const r = await restCall(ep, { method: 'GET', path: `/tasks/${enc(req.taskId)}/pushNotificationConfigs`, query: { pageSize: req.pageSize, pageToken: req.pageToken }, ...o });
      const list = Array.isArray(r) ? r : isObject(r) && Array.isArray(r.configs) ? r.configs : [];
      return { configs: list.map(pushConfigFromV03), nextPageToken: isObject(r) && typeof r.nextPageToken === 'string' ? r.nextPageToken : '' };
    },
    deleteTaskPushNotificationConfig: async (ref, o) => void (await restCall(ep, { method: 'DELETE', path: `/tasks/${enc(ref.taskId)}/pushNotificationConfigs/${enc(ref.id)}`, ...o })),
    getExtendedAgentCard: async (o) => {
      const card = await restCall(ep, { method: 'GET', path: '/card', ...o });
      return isV03Card(card) ? agentCardFromV03(card) : asAgentCard(card);
    },
    close() {},
  };
}
