/**
 * A2A v0.1 over JSON-RPC: `tasks/send`, `tasks/sendSubscribe`, `tasks/pushNotification/set|get`
 * (recognised by name), and `tasks/get|cancel|resubscribe` for tasks a v0.1 client named (v0.3
 * shares those names, so ../jsonrpc.ts hands them over when the id is no v0.3 task). The
 * client's task id is mapped to a server id per caller (src/protocol/a2a-v01/task-ids.ts); params,
 * results, stream events and errors are translated by src/protocol/a2a-v01.
 */
import { usageOf } from '../../../edge/call-usage.js';
import { type A2AHandler, CallContext, type StreamItem } from '../../../core/a2a-handler.js';
import { A2AError } from '../../../protocol/a2a/errors.js';
import type { SendMessageRequest } from '../../../protocol/a2a/types.js';
import { isObject } from '../../../protocol/a2a-v03/fields.js';
import { errorFromV1 } from '../../../protocol/a2a-v01/errors.js';
import { messageAsTask, V01StreamTranslator } from '../../../protocol/a2a-v01/events.js';
import { pushConfigToV1, taskPushConfigFromV1 } from '../../../protocol/a2a-v01/push.js';
import { inlinePushToV1, isV01StreamingMethod, sendParamsToV1, setPushParams, taskQueryToV1, type V01Method } from '../../../protocol/a2a-v01/requests.js';
import { serverTaskId } from '../../../protocol/a2a-v01/task-ids.js';
import { taskFromV1 } from '../../../protocol/a2a-v01/tasks.js';
import { lastEventId, pipeSse } from '../../a2a-common/sse.js';
import { resolveAgent } from '../../a2a-common/tenant.js';
import { errorReply, resultBody, type Id, type JsonRpcReply } from '../../a2a-jsonrpc/reply.js';
import type { LegacyCall } from '../legacy-call.js';

export function jsonRpcErrorV01(id: Id, err: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: errorFromV1(err) });
}

export interface V01CallOptions {
  handler: A2AHandler;
  keepAliveMs: number;
  log?: { error(obj: object, msg?: string): void };
}

export async function handleV01Call(o: V01CallOptions, call: LegacyCall<V01Method>): Promise<JsonRpcReply | undefined> {
  const { req, res, id, method, params: rawParams, routeAgentId, defaultAgentId, principal, beforeStream } = call;
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  try {
    if (rawParams !== undefined && !isObject(rawParams)) throw new A2AError('InvalidParams', 'params must be an object');
    const params = rawParams ?? {};
    const agentId = resolveAgent(o.handler, routeAgentId, undefined, defaultAgentId, principal);
    // v0.1 had no extensions; configs registered here get v0.1 webhook bodies.
    const usage = usageOf(req);
    if (usage) usage.face = 'a2a-jsonrpc/0.1';
    const ctx = CallContext.of(agentId, principal, { wireVersion: '0.1', usage });
    const idOf = (clientId: string) => serverTaskId(clientId, agentId, principal.subject);

    if (isV01StreamingMethod(method)) {
      let translator: V01StreamTranslator;
      let iterable: AsyncIterable<StreamItem>;
      if (method === 'tasks/sendSubscribe') {
        const send = prepareSend(ctx, params, idOf);
        translator = new V01StreamTranslator(send.clientId);
        iterable = o.handler.sendStreamingMessage(send.ctx, send.request);
      } else {
        const q = taskQueryToV1(params);
        translator = new V01StreamTranslator(q.clientId);
        const resumeAfter = lastEventId(req.headers['last-event-id']);
        if (resumeAfter !== undefined) translator.knowArtifacts(await o.handler.getTask(ctx, { id: idOf(q.clientId), historyLength: 0 }));
        iterable = o.handler.subscribeToTask(ctx, { id: idOf(q.clientId) }, resumeAfter);
      }
      const it = iterable[Symbol.asyncIterator]();
      const first = await it.next(); // errors here are ordinary JSON-RPC errors
      await pipeSse(req, res, it, first, {
        keepAliveMs: o.keepAliveMs,
        beforeCommit: beforeStream,
        encode: (item: StreamItem) => JSON.stringify({ jsonrpc: '2.0', id, result: translator.next(item.response) }),
        encodeError: (err) => {
          logInternal(o, err, method);
          return jsonRpcErrorV01(id, err);
        },
      });
      return undefined;
    }
    return { status: 200, headers, body: resultBody(id, await unary(o.handler, ctx, method, params, idOf)) };
  } catch (err) {
    logInternal(o, err, method);
    return errorReply(headers, err, (e) => jsonRpcErrorV01(id, e));
  }
}

function logInternal(o: V01CallOptions, err: unknown, method: string): void {
  if (!(err instanceof A2AError)) o.log?.error({ err, method }, 'internal error in v0.1 JSON-RPC call');
}

/**
 * `TaskSendParams` → a SendMessage under the task id the client named (namespaced): the core
 * continues the caller's task of that id when there is one and creates it otherwise. No probe
 * here: a probe (GetTask) would need a2a:discover, which a sender need not hold.
 */
function prepareSend(ctx: CallContext, params: Record<string, unknown>, idOf: (clientId: string) => string) {
  const p = sendParamsToV1(params);
  const taskId = idOf(p.clientId);
  const message = { ...p.request.message, ...(p.sessionId ? { contextId: p.sessionId } : {}) };
  const request: SendMessageRequest = { ...p.request, message };
  const push = inlinePushToV1(params, taskId);
  if (push || p.historyLength !== undefined) {
    request.configuration = { ...(push ? { taskPushNotificationConfig: push } : {}), ...(p.historyLength !== undefined ? { historyLength: p.historyLength } : {}) };
  }
  // A v0.1 request makes one call: its context takes the client's task id in place.
  ctx.clientTaskId = taskId;
  return { clientId: p.clientId, sessionId: p.sessionId, request, ctx };
}

async function unary(h: A2AHandler, ctx: CallContext, method: V01Method, p: Record<string, unknown>, idOf: (clientId: string) => string): Promise<unknown> {
  switch (method) {
    case 'tasks/send': {
      const send = prepareSend(ctx, p, idOf);
      const r = await h.sendMessage(send.ctx, send.request);
      return 'task' in r ? taskFromV1(r.task) : messageAsTask(send.clientId, send.sessionId ?? r.message.contextId, r.message);
    }
    case 'tasks/get': {
      const q = taskQueryToV1(p);
      return taskFromV1(await h.getTask(ctx, { id: idOf(q.clientId), ...(q.historyLength !== undefined ? { historyLength: q.historyLength } : {}) }));
    }
    case 'tasks/cancel':
      return taskFromV1(await h.cancelTask(ctx, { id: idOf(taskQueryToV1(p).clientId) }));
    case 'tasks/pushNotification/set': {
      const { clientId, config } = setPushParams(p);
      const created = await h.createTaskPushNotificationConfig(ctx, pushConfigToV1(config, idOf(clientId)));
      return taskPushConfigFromV1(clientId, created);
    }
    case 'tasks/pushNotification/get': {
      const { clientId } = taskQueryToV1(p);
      const taskId = idOf(clientId);
      return taskPushConfigFromV1(clientId, await h.getTaskPushNotificationConfig(ctx, { taskId, id: taskId }));
    }
    case 'tasks/sendSubscribe':
    case 'tasks/resubscribe':
      break;
  }
  throw new A2AError('MethodNotFound');
}
