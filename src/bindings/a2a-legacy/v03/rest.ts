/**
 * A2A v0.3 over HTTP+JSON: the `/v1/…` paths of the v0.3.0 proto's `google.api.http` rules beneath
 * each agent base, plus v0.2's `GET {base}/agent/authenticatedExtendedCard`. Bodies are the v0.3
 * proto's JSON form (src/protocol/a2a-v03/protojson.ts), errors the bare v0.3 error object
 * `{code, message, data}` with the HTTP status of the A2A error, as the v0.3 SDKs read them.
 */
import { usageOf } from '../../../edge/call-usage.js';
import { withChallenge } from '../../auth-challenge.js';
import { withRateLimit } from '../../rate-limit-headers.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type A2AHandler, CallContext, type StreamItem } from '../../../core/a2a-handler.js';
import type { Principal } from '../../../core/authz/principal.js';
import { A2AError, toA2AError } from '../../../protocol/a2a/errors.js';
import * as v from '../../../protocol/a2a/validate.js';
import { agentCardFromV1 } from '../../../protocol/a2a-v03/cards.js';
import { errorFromV1 } from '../../../protocol/a2a-v03/errors.js';
import { agentCardToProto, pushConfigFromProto, sendRequestFromProto, sendResponseToProto, streamResponseToProto, taskPushConfigToProto, taskToProto } from '../../../protocol/a2a-v03/protojson.js';
import { activateExtensions, headerValues, isV03Version, parseExtensions } from '../../a2a-common/service-params.js';
import { lastEventId, pipeSse } from '../../a2a-common/sse.js';
import { resolveAgent } from '../../a2a-common/tenant.js';
import type { RestReply } from '../../a2a-rest/reply.js';
import { intOrRaw, matchRoute, parseBody, queryObject, type Route } from '../../a2a-rest/routes.js';

const JSON_TYPE = 'application/json';

/**
 * Whether a request beneath an agent base is v0.3 HTTP+JSON: a `/v1/…` or `agent/authenticatedExtendedCard`
 * path sent without `A2A-Version` or with 0.3. With `A2A-Version: 1.0` the same path is v1.0 REST
 * (a tenant named `v1`).
 */
export function isV03RestRequest(req: IncomingMessage, segments: readonly string[], query?: URLSearchParams): boolean {
  const isV03Path = segments[0] === 'v1' || (segments.length === 2 && segments[0] === 'agent' && segments[1] === 'authenticatedExtendedCard');
  if (!isV03Path) return false;
  const version = headerValues(req.headers['a2a-version'])[0] ?? query?.get('A2A-Version') ?? undefined;
  return isV03Version(version);
}

export function v03RestErrorBody(err: unknown): { status: number; body: string } {
  return { status: toA2AError(err).identity.http, body: JSON.stringify(errorFromV1(err)) };
}

type V03Route = Route | { op: 'card' | 'v02ExtendedCard' };

function matchV03Route(method: string, segments: string[]): V03Route {
  if (segments[0] === 'agent') {
    if (method !== 'GET') throw new A2AError('MethodNotFound', `${method} is not allowed on this path`);
    return { op: 'v02ExtendedCard' };
  }
  const s = segments.slice(1);
  if (s.length === 1 && s[0] === 'card') {
    if (method !== 'GET') throw new A2AError('MethodNotFound', `${method} is not allowed on this path`);
    return { op: 'card' };
  }
  const r = matchRoute(method, s);
  // v0.3's spec table named `GET /v1/tasks`, but its proto never defined ListTask (digest §12.13).
  if (r.op === 'list' || r.op === 'extendedCard') throw new A2AError('MethodNotFound', 'No A2A v0.3 operation at this path');
  return r;
}

export interface V03RestOptions {
  handler: A2AHandler;
  keepAliveMs: number;
}

export class V03RestBinding {
  constructor(private readonly o: V03RestOptions) {}

  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    body: string | undefined,
    routeAgentId: string,
    segments: string[],
    query: URLSearchParams,
    principal: Principal,
    beforeStream: (() => void) | undefined,
    log: { error(obj: object, msg?: string): void } | undefined,
  ): Promise<RestReply | undefined> {
    const headers: Record<string, string> = { 'Content-Type': JSON_TYPE };
    try {
      const route = matchV03Route(req.method ?? 'GET', segments);
      const agentId = resolveAgent(this.o.handler, routeAgentId, undefined, routeAgentId, principal);
      // v0.3 named the header X-A2A-Extensions; accept both, answer with the v0.3 name.
      const requested = parseExtensions([...headerValues(req.headers['x-a2a-extensions']), ...headerValues(req.headers['a2a-extensions'])]);
      const activated = activateExtensions(this.o.handler.agentExtensions(agentId), requested);
      if (activated.length) headers['X-A2A-Extensions'] = activated.join(', ');
      // wireVersion: configs registered here get v0.3 webhook bodies
      const usage = usageOf(req);
      if (usage) usage.face = 'a2a-rest/0.3';
      const ctx = CallContext.of(agentId, principal, { wireVersion: '0.3', usage }, requested);
      const h = this.o.handler;
      const ok = (value: unknown): RestReply => ({ status: 200, headers, body: JSON.stringify(value ?? {}) });

      switch (route.op) {
        case 'send':
          return ok(sendResponseToProto(await h.sendMessage(ctx, sendRequestFromProto(parseBody(body)))));
        case 'get':
          return ok(taskToProto(await h.getTask(ctx, { id: route.id, historyLength: v.historyLength(intOrRaw(query.get('historyLength'))) })));
        case 'cancel':
          return ok(taskToProto(await h.cancelTask(ctx, { id: route.id })));
        case 'pushCreate': {
          const cfg = pushConfigFromProto(parseBody(body), route.taskId);
          return ok(taskPushConfigToProto(await h.createTaskPushNotificationConfig(ctx, cfg), route.taskId));
        }
        case 'pushList': {
          const r = await h.listTaskPushNotificationConfigs(ctx, v.listPushConfigsRequest({ ...queryObject(query, ['pageSize']), taskId: route.taskId }));
          return ok({ configs: r.configs.map((c) => taskPushConfigToProto(c, route.taskId)), ...(r.nextPageToken ? { nextPageToken: r.nextPageToken } : {}) });
        }
        case 'pushGet':
          return ok(taskPushConfigToProto(await h.getTaskPushNotificationConfig(ctx, { taskId: route.taskId, id: route.id }), route.taskId));
        case 'pushDelete':
          await h.deleteTaskPushNotificationConfig(ctx, { taskId: route.taskId, id: route.id });
          return ok({});
        case 'list':
        case 'extendedCard':
          throw new A2AError('MethodNotFound', 'No A2A v0.3 operation at this path');
        case 'card':
          return ok(agentCardToProto(await h.getExtendedAgentCard(ctx)));
        case 'v02ExtendedCard':
          return ok(agentCardFromV1(await h.getExtendedAgentCard(ctx)));
        case 'stream':
        case 'subscribe': {
          const subscribeId = route.op === 'subscribe' ? route.id : '';
          const iterable = route.op === 'stream' ? h.sendStreamingMessage(ctx, sendRequestFromProto(parseBody(body))) : h.subscribeToTask(ctx, { id: subscribeId }, lastEventId(req.headers['last-event-id']));
          const it = iterable[Symbol.asyncIterator]();
          const first = await it.next();
          await pipeSse(req, res, it, first, {
            keepAliveMs: this.o.keepAliveMs,
            beforeCommit: beforeStream,
            headers: activated.length ? { 'X-A2A-Extensions': activated.join(', ') } : undefined,
            encode: (item: StreamItem) => JSON.stringify(streamResponseToProto(item.response)),
            encodeError: (err) => {
              if (!(err instanceof A2AError)) log?.error({ err }, 'internal error in v0.3 HTTP+JSON stream');
              return JSON.stringify(errorFromV1(err));
            },
          });
          return undefined;
        }
      }
    } catch (err) {
      if (!(err instanceof A2AError)) log?.error({ err }, 'internal error in v0.3 HTTP+JSON call');
      const { status, body: b } = v03RestErrorBody(err);
      return { status, headers: withRateLimit(withChallenge(headers, err), err), body: b };
    }
  }
}
