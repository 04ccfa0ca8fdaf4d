/**
 * A2A v0.3 over JSON-RPC: slash methods (`message/send`, `tasks/get`, …) from clients that send no
 * `A2A-Version` (or `0.3`). Params are translated into the core's v1.0 requests and results,
 * stream events and errors back into v0.3 shapes by src/protocol/a2a-v03; nothing else differs
 * from the v1.0 path.
 */
import { usageOf } from '../../../edge/call-usage.js';
import { type A2AHandler, CallContext, type StreamItem } from '../../../core/a2a-handler.js';
import { A2AError, toA2AError } from '../../../protocol/a2a/errors.js';
import type { TaskPushNotificationConfig } from '../../../protocol/a2a/types.js';
import { agentCardFromV1 } from '../../../protocol/a2a-v03/cards.js';
import { errorFromV1 } from '../../../protocol/a2a-v03/errors.js';
import { sendResultFromV1, streamResultFromV1 } from '../../../protocol/a2a-v03/events.js';
import { isObject } from '../../../protocol/a2a-v03/fields.js';
import { pushConfigRefToV1, taskPushConfigFromV1, taskPushConfigToV1 } from '../../../protocol/a2a-v03/push.js';
import { cancelParamsToV1, isV03StreamingMethod, listPushConfigsParamsToV1, resubscribeParamsToV1, sendParamsToV1, taskQueryToV1, type V03Method } from '../../../protocol/a2a-v03/requests.js';
import { taskFromV1 } from '../../../protocol/a2a-v03/tasks.js';
import { activateExtensions, headerValues, parseExtensions } from '../../a2a-common/service-params.js';
import { lastEventId, pipeSse } from '../../a2a-common/sse.js';
import { resolveAgent } from '../../a2a-common/tenant.js';
import { errorReply, resultBody, type Id, type JsonRpcReply } from '../../a2a-jsonrpc/reply.js';
import type { LegacyCall } from '../legacy-call.js';

/** A v0.3 JSON-RPC error response. */
export function jsonRpcErrorV03(id: Id, err: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: errorFromV1(err) });
}

/** v0.3 lists every config at once; the core pages, so the pages are joined (bounded). */
const LIST_PAGE_SIZE = 100;
const LIST_MAX_PAGES = 100;

export interface V03CallOptions {
  handler: A2AHandler;
  keepAliveMs: number;
  log?: { error(obj: object, msg?: string): void };
}

export async function handleV03Call(
  o: V03CallOptions,
  call: LegacyCall<V03Method>,
  /** the same call in an older version that shares this method's name, tried when the task is not found here */
  ifTaskNotFound?: () => Promise<JsonRpcReply | undefined>,
): Promise<JsonRpcReply | undefined> {
  const { req, res, id, method, params: rawParams, routeAgentId, defaultAgentId, principal, beforeStream } = call;
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  try {
    if (rawParams !== undefined && !isObject(rawParams)) throw new A2AError('InvalidParams', 'params must be an object');
    const params = rawParams ?? {};
    const agentId = resolveAgent(o.handler, routeAgentId, undefined, defaultAgentId, principal);
    // v0.3 named the header X-A2A-Extensions (docs/topics/extensions.md at v0.3.0); accept both.
    const requested = parseExtensions([...headerValues(req.headers['x-a2a-extensions']), ...headerValues(req.headers['a2a-extensions'])]);
    const activated = activateExtensions(o.handler.agentExtensions(agentId), requested);
    if (activated.length) headers['X-A2A-Extensions'] = activated.join(', ');
    // wireVersion: configs registered here get v0.3 webhook bodies
    const usage = usageOf(req);
    if (usage) usage.face = 'a2a-jsonrpc/0.3';
    const ctx = CallContext.of(agentId, principal, { wireVersion: '0.3', usage }, requested);

    if (isV03StreamingMethod(method)) {
      const iterable = method === 'message/stream' ? o.handler.sendStreamingMessage(ctx, sendParamsToV1(params)) : o.handler.subscribeToTask(ctx, resubscribeParamsToV1(params), lastEventId(req.headers['last-event-id']));
      const it = iterable[Symbol.asyncIterator]();
      const first = await it.next(); // errors here are ordinary JSON-RPC errors
      await pipeSse(req, res, it, first, {
        keepAliveMs: o.keepAliveMs,
        beforeCommit: beforeStream,
        headers: activated.length ? { 'X-A2A-Extensions': activated.join(', ') } : undefined,
        encode: (item: StreamItem) => JSON.stringify({ jsonrpc: '2.0', id, result: streamResultFromV1(item.response) }),
        encodeError: (err) => {
          logInternal(o, err, method);
          return jsonRpcErrorV03(id, err);
        },
      });
      return undefined;
    }
    return { status: 200, headers, body: resultBody(id, await unary(o.handler, ctx, method, params)) };
  } catch (err) {
    // An id that is no task here may name one of an older version sharing the method (../jsonrpc.ts).
    if (ifTaskNotFound && toA2AError(err).kind === 'TaskNotFound' && !res.headersSent) return ifTaskNotFound();
    logInternal(o, err, method);
    return errorReply(headers, err, (e) => jsonRpcErrorV03(id, e));
  }
}

function logInternal(o: V03CallOptions, err: unknown, method: string): void {
  if (!(err instanceof A2AError)) o.log?.error({ err, method }, 'internal error in v0.3 JSON-RPC call');
}

async function unary(h: A2AHandler, ctx: CallContext, method: V03Method, p: Record<string, unknown>): Promise<unknown> {
  switch (method) {
    case 'message/send':
      return sendResultFromV1(await h.sendMessage(ctx, sendParamsToV1(p)));
    case 'tasks/get':
      return taskFromV1(await h.getTask(ctx, taskQueryToV1(p)));
    case 'tasks/cancel':
      return taskFromV1(await h.cancelTask(ctx, cancelParamsToV1(p)));
    case 'tasks/pushNotificationConfig/set': {
      const cfg = taskPushConfigToV1(p);
      return taskPushConfigFromV1(await h.createTaskPushNotificationConfig(ctx, cfg), cfg.taskId);
    }
    case 'tasks/pushNotificationConfig/get': {
      const ref = pushConfigRefToV1(p, false);
      return taskPushConfigFromV1(await h.getTaskPushNotificationConfig(ctx, ref), ref.taskId);
    }
    case 'tasks/pushNotificationConfig/list': {
      const req = listPushConfigsParamsToV1(p);
      const all: TaskPushNotificationConfig[] = [];
      let pageToken: string | undefined;
      for (let page = 0; page < LIST_MAX_PAGES; page++) {
        const r = await h.listTaskPushNotificationConfigs(ctx, { ...req, pageSize: LIST_PAGE_SIZE, ...(pageToken ? { pageToken } : {}) });
        all.push(...r.configs);
        if (!r.nextPageToken) break;
        pageToken = r.nextPageToken;
      }
      return all.map((c) => taskPushConfigFromV1(c, req.taskId));
    }
    case 'tasks/pushNotificationConfig/delete':
      await h.deleteTaskPushNotificationConfig(ctx, pushConfigRefToV1(p, true));
      return null;
    case 'agent/getAuthenticatedExtendedCard':
      return agentCardFromV1(await h.getExtendedAgentCard(ctx));
    case 'message/stream':
    case 'tasks/resubscribe':
      break;
  }
  throw new A2AError('MethodNotFound');
}
