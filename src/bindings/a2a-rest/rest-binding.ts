/**
 * A2A HTTP+JSON binding (spec §11): the REST routes of lf.a2a.v1.A2AService beneath each agent's
 * base path, every one also under `/{tenant}/`. Errors are google.rpc.Status in `{"error": …}`.
 * v0.3 requests (`/v1/…` without `A2A-Version: 1.0`) go to src/bindings/a2a-legacy/v03/rest.ts.
 */
import { usageOf } from '../../edge/call-usage.js';
import { connectionGone } from '../connection-gone.js';
import { withChallenge } from '../auth-challenge.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type A2AHandler, CallContext, type StreamItem } from '../../core/a2a-handler.js';
import type { Principal } from '../../core/authz/principal.js';
import { A2AError } from '../../protocol/a2a/errors.js';
import { restErrorBody } from '../../protocol/a2a/rest-error-body.js';
import { resultJson } from '../../protocol/a2a/written-json.js';
import { withRateLimit } from '../rate-limit-headers.js';
import type { JsonObject } from '../../protocol/a2a/types.js';
import * as v from '../../protocol/a2a/validate.js';
import { activateExtensions, headerValues, negotiateVersion, parseExtensions } from '../a2a-common/service-params.js';
import { lastEventId, pipeSse, type SseOptions } from '../a2a-common/sse.js';
import { resolveAgent } from '../a2a-common/tenant.js';
import { isV03RestRequest, V03RestBinding } from '../a2a-legacy/v03/rest.js';
import type { RestReply } from './reply.js';
import { intOrRaw, matchRoute, parseBody, queryObject } from './routes.js';

export const A2A_JSON = 'application/a2a+json';

/** Kept here for the faces that import it with the binding; the encoding is protocol/a2a/rest-error-body.ts. */
export { restErrorBody };

/** How an HTTP+JSON stream is written: one object per open stream, no closures over the call. */
class RestSse implements SseOptions {
  constructor(
    readonly keepAliveMs: number,
    private readonly log: { error(obj: object, msg?: string): void } | undefined,
    readonly beforeCommit: (() => void) | undefined,
    readonly headers: Record<string, string> | undefined,
  ) {}

  encode(item: StreamItem): string {
    return JSON.stringify(item.response);
  }

  encodeError(err: unknown): string {
    if (!(err instanceof A2AError)) this.log?.error({ err }, 'internal error in HTTP+JSON stream');
    return restErrorBody(err).body;
  }
}

export interface RestBindingOptions {
  handler: A2AHandler;
  keepAliveMs: number;
  log?: { error(obj: object, msg?: string): void };
}

/** Top-level path segments that name an operation; anything else in that position is a tenant. */
const OPERATION_ROOTS = new Set(['message:send', 'message:stream', 'tasks', 'extendedAgentCard']);

/**
 * Responses are `application/a2a+json` when the client's Accept names it, else `application/json`:
 * v1.0.1 §11 says a2a+json SHOULD, while the TCK requires a type containing `application/json`
 * for clients that do not ask (docs/compliance.md).
 */
export function negotiateMediaType(req: IncomingMessage): string {
  const accept = req.headers.accept ?? '';
  return accept.includes(A2A_JSON) ? A2A_JSON : 'application/json';
}

/** Whether a `Content-Type` names JSON: `application/json` or A2A's, any case, parameters and spaces aside. */
export function isJsonContentType(ct: string | undefined): boolean {
  if (!ct) return false;
  // The header as nearly every client sends it, answered without the split, trim and lowercase
  // copies below (~1.7 k instructions a request: bare32).
  if (ct === 'application/json' || ct === A2A_JSON) return true;
  const base = (ct.split(';')[0] ?? '').trim().toLowerCase();
  return base === 'application/json' || base === A2A_JSON;
}

export class RestBinding {
  private readonly v03: V03RestBinding;

  constructor(private readonly o: RestBindingOptions) {
    this.v03 = new V03RestBinding(o);
  }

  /**
   * `segments`: the decoded path segments below the agent base (or below `/a2a` on the shared form).
   * Returns a reply, or undefined when it streamed the response itself.
   */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    body: string | undefined,
    routeAgentId: string,
    segments: string[],
    query: URLSearchParams,
    principal: Principal,
    beforeStream?: () => void,
    log: { error(obj: object, msg?: string): void } | undefined = this.o.log,
  ): Promise<RestReply | undefined> {
    if (isV03RestRequest(req, segments, query)) return this.v03.handle(req, res, body, routeAgentId, segments, query, principal, beforeStream, log);
    const mediaType = negotiateMediaType(req);
    const headers: Record<string, string> = { 'Content-Type': mediaType };
    const fail = (err: unknown): RestReply => {
      if (!(err instanceof A2AError)) log?.error({ err }, 'internal error in HTTP+JSON call');
      const { status, body: b } = restErrorBody(err);
      // RFC 9110 §11.6.1: a 401 carries a challenge.
      return { status, headers: withRateLimit(withChallenge(headers, err), err), body: b };
    };
    try {
      let tenant: string | undefined;
      if (segments[0] !== undefined && !OPERATION_ROOTS.has(segments[0])) tenant = segments.shift();
      const method = req.method ?? 'GET';
      const route = matchRoute(method, segments);
      negotiateVersion(headerValues(req.headers['a2a-version'])[0] ?? query.get('A2A-Version') ?? undefined, 'A2A-Version');
      const agentId = resolveAgent(this.o.handler, routeAgentId, tenant, routeAgentId, principal);
      const requested = parseExtensions(headerValues(req.headers['a2a-extensions']));
      const activated = activateExtensions(this.o.handler.agentExtensions(agentId), requested);
      if (activated.length) headers['A2A-Extensions'] = activated.join(', ');
      const usage = usageOf(req);
      if (usage) usage.face = 'a2a-rest/1.0';
      const ctx = new CallContext(agentId, principal, requested);
      ctx.clientGone = () => connectionGone(req);
      ctx.usage = usage;
      const json = () => parseBody(body);
      const h = this.o.handler;
      // a task the store has just written is not serialised again (protocol/a2a/written-json.ts)
      const ok = (value: object | undefined, status = 200): RestReply => ({ status, headers, body: value === undefined ? '{}' : resultJson(value) });

      switch (route.op) {
        case 'send':
          return ok(await h.sendMessage(ctx, v.sendMessageRequest(json())));
        case 'list':
          return ok(await h.listTasks(ctx, v.listTasksRequest(queryObject(query, ['historyLength', 'pageSize']))));
        case 'get':
          return ok(await h.getTask(ctx, { id: route.id, historyLength: v.historyLength(intOrRaw(query.get('historyLength'))) }));
        case 'cancel': {
          const b = body?.trim() ? json() : {};
          // parsed from the body's JSON text, so every value under it is JSON
          return ok(await h.cancelTask(ctx, { id: route.id, ...(v.isObject(b.metadata) ? { metadata: b.metadata as JsonObject } : {}) }));
        }
        case 'pushCreate': {
          const cfg = v.pushConfig({ ...json(), taskId: route.taskId }, 'config');
          return ok(await h.createTaskPushNotificationConfig(ctx, cfg));
        }
        case 'pushList':
          return ok(await h.listTaskPushNotificationConfigs(ctx, v.listPushConfigsRequest({ ...queryObject(query, ['pageSize']), taskId: route.taskId })));
        case 'pushGet':
          return ok(await h.getTaskPushNotificationConfig(ctx, { taskId: route.taskId, id: route.id }));
        case 'pushDelete':
          await h.deleteTaskPushNotificationConfig(ctx, { taskId: route.taskId, id: route.id });
          return ok(undefined);
        case 'extendedCard':
          return ok(await h.getExtendedAgentCard(ctx));
        case 'stream':
        case 'subscribe': {
          const subscribeId = route.op === 'subscribe' ? route.id : '';
          const iterable =
            route.op === 'stream'
              ? h.sendStreamingMessage(ctx, v.sendMessageRequest(json()))
              : h.subscribeToTask(ctx, { id: subscribeId }, lastEventId(req.headers['last-event-id'] ?? query.get('lastEventId') ?? undefined));
          const it = iterable[Symbol.asyncIterator]();
          const first = await it.next();
          const extensions = activated.length ? { 'A2A-Extensions': activated.join(', ') } : undefined;
          await pipeSse(req, res, it, first, new RestSse(this.o.keepAliveMs, log, beforeStream, extensions));
          return undefined;
        }
      }
    } catch (err) {
      return fail(err);
    }
  }
}
