/**
 * A2A JSON-RPC 2.0 binding (spec §9): one POST endpoint per agent base path, plus the shared
 * endpoint where `params.tenant` names the agent. Decodes, calls the core, encodes. Nothing else.
 * Slash methods from v0.3 and v0.1 clients go to src/bindings/a2a-legacy/jsonrpc.ts.
 */
import { usageOf } from '../../edge/call-usage.js';
import { connectionGone } from '../connection-gone.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type A2AHandler, CallContext, type StreamItem } from '../../core/a2a-handler.js';
import type { Principal } from '../../core/authz/principal.js';
import { OPERATION_BY_NAME } from '../../core/operations.js';
import { A2AError, invalidParams, toA2AError } from '../../protocol/a2a/errors.js';
import type { JsonObject } from '../../protocol/a2a/types.js';
import * as v from '../../protocol/a2a/validate.js';
import { activateExtensions, headerValues, isV03Version, negotiateVersion, parseExtensions } from '../a2a-common/service-params.js';
import { resolveAgent } from '../a2a-common/tenant.js';
import { lastEventId, pipeSse, type SseOptions } from '../a2a-common/sse.js';
import { errorReply, queryParam, resultReply, type Id, type JsonRpcReply } from './reply.js';
import { handleLegacyCall } from '../a2a-legacy/jsonrpc.js';

export { queryParam, type JsonRpcReply };

export interface JsonRpcBindingOptions {
  handler: A2AHandler;
  keepAliveMs: number;
  log?: { error(obj: object, msg?: string): void };
}

export function jsonRpcError(id: Id, err: unknown): string {
  const e = toA2AError(err);
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code: e.identity.jsonrpc, message: e.message, data: e.details() } });
}

function logInternal(err: unknown, method: string, log: { error(obj: object, msg?: string): void } | undefined): void {
  if (!(err instanceof A2AError)) log?.error({ err, method }, 'internal error in JSON-RPC call');
}

/** How a JSON-RPC stream is written: one object per open stream, no closures over the call. */
class JsonRpcSse implements SseOptions {
  constructor(
    readonly keepAliveMs: number,
    readonly id: Id,
    readonly method: string,
    readonly log: { error(obj: object, msg?: string): void } | undefined,
    readonly beforeCommit: (() => void) | undefined,
    readonly headers: Record<string, string> | undefined,
  ) {}

  encode(item: StreamItem): string {
    return JSON.stringify({ jsonrpc: '2.0', id: this.id, result: item.response });
  }

  encodeError(err: unknown): string {
    logInternal(err, this.method, this.log);
    return jsonRpcError(this.id, err);
  }
}

/**
 * What sets `X-Request-Id` on a streamed answer as it starts, when the face puts it in the head of
 * a reply instead (Face.writesRequestId). Made only for a stream: a unary call paid for a closure
 * it never called (issue 26, bytes allocated a request).
 */
function setsRequestId(res: ServerResponse, requestId: string | undefined): (() => void) | undefined {
  return requestId === undefined ? undefined : () => res.setHeader('X-Request-Id', requestId);
}

/**
 * A request refused before its id was read (a JSON-RPC error with a null id). JSON-RPC errors go
 * out as 200s: the usage record learns them here, not from the status. (Functions, not closures
 * made per call: every request paid for three it nearly never used.)
 */
function refusal(headers: Record<string, string>, usage: ReturnType<typeof usageOf>, err: A2AError): JsonRpcReply {
  usage?.noteError(err);
  return { status: 200, headers, body: jsonRpcError(null, err) };
}

/** A call that failed, answered under its id. */
function failure(headers: Record<string, string>, usage: ReturnType<typeof usageOf>, id: Id, err: unknown): JsonRpcReply {
  usage?.noteError(err);
  return errorReply(headers, err, (e) => jsonRpcError(id, e));
}

/**
 * The headers of a reply that activated no extension: one object for every such call, read only
 * (a reply with more headers is a copy: errorReply, withChallenge, withRateLimit), not one a request.
 */
const JSON_HEADERS: Record<string, string> = Object.freeze({ 'Content-Type': 'application/json' });
/** No extension asked for or activated: one list, never written (CallContext's is read only). */
const NO_EXTENSIONS: readonly string[] = Object.freeze([]);

export class JsonRpcBinding {
  constructor(private readonly o: JsonRpcBindingOptions) {}

  /**
   * Handles one request whose body has already been read. `routeAgentId` is the agent of the base
   * path, or undefined on the shared endpoint. `streamRequestId`: the request id a streamed answer
   * sets as it starts (the face writes a reply's in the reply's head). Returns a reply to send, or undefined when it has
   * streamed the response itself.
   *
   * Not async, and the decoding not in an async function: an async function's frame keeps its
   * arguments and every register until it ends, and a unary call's lasts until the core answers, so
   * the body's text, the parsed envelope and its params survived every scavenge meanwhile (issue 26,
   * docs/benchmarks.md tail21). What waits is `unaryReply`, with the reply's few parts. Decoding's
   * own failures are replies; anything else thrown here reaches the face's async `serve` as a
   * rejection would.
   */
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    body: string,
    routeAgentId: string | undefined,
    defaultAgentId: string,
    principal: Principal,
    streamRequestId?: string,
    log: { error(obj: object, msg?: string): void } | undefined = this.o.log,
  ): Promise<JsonRpcReply | undefined> {
    let headers = JSON_HEADERS;
    const usage = usageOf(req);
    if (usage) usage.face = 'a2a-jsonrpc/1.0';

    let msg: unknown;
    try {
      msg = JSON.parse(body);
    } catch {
      return Promise.resolve(refusal(headers, usage, new A2AError('ParseError')));
    }
    if (!v.isObject(msg)) return Promise.resolve(refusal(headers, usage, new A2AError('InvalidRequest', 'The request must be a single JSON-RPC 2.0 object')));
    const rawId = msg.id;
    const idOk = rawId === undefined || rawId === null || typeof rawId === 'string' || (typeof rawId === 'number' && Number.isFinite(rawId));
    const id: Id = idOk ? ((rawId as Id | undefined) ?? null) : null;
    if (msg.jsonrpc !== '2.0' || !idOk || typeof msg.method !== 'string') {
      return Promise.resolve(failure(headers, usage, id, new A2AError('InvalidRequest', "The request must have jsonrpc '2.0', a string method and a string or number id")));
    }
    const versionHeader = req.headers['a2a-version'];
    const version = (typeof versionHeader === 'string' ? versionHeader : versionHeader?.[0]) ?? queryParam(req, 'A2A-Version');
    // Spec §3.6.2: no A2A-Version means v0.3. A slash method from such a client is a v0.3 (or
    // v0.1) call, translated; a v1.0 method without the header stays VersionNotSupported below.
    if (msg.method.includes('/') && isV03Version(version)) {
      return handleLegacyCall({ ...this.o, log }, { req, res, id, method: msg.method, params: msg.params, routeAgentId, defaultAgentId, principal, beforeStream: setsRequestId(res, streamRequestId) });
    }
    if (msg.params !== undefined && !v.isObject(msg.params)) {
      return Promise.resolve(failure(headers, usage, id, new A2AError('InvalidParams', 'params must be an object')));
    }
    const method = msg.method;
    const params = (msg.params ?? {}) as Record<string, unknown>;
    try {
      const operation = OPERATION_BY_NAME.get(method);
      if (!operation) throw new A2AError('MethodNotFound', `Method '${method}' is not an A2A v1.0 method`);
      negotiateVersion(version, 'A2A-Version');
      const tenant = typeof params.tenant === 'string' && params.tenant !== '' ? params.tenant : undefined;
      const agentId = resolveAgent(this.o.handler, routeAgentId, tenant, defaultAgentId, principal);
      const extensionsHeader = req.headers['a2a-extensions'];
      const requested = extensionsHeader === undefined ? NO_EXTENSIONS : parseExtensions(headerValues(extensionsHeader));
      const declared = this.o.handler.agentExtensions(agentId);
      // Nearly every call asks for none and the agent requires none: nothing to activate, no list made.
      const activated = requested.length === 0 && (declared === undefined || declared.required.length === 0) ? NO_EXTENSIONS : activateExtensions(declared, requested);
      if (activated.length) headers = { 'Content-Type': 'application/json', 'A2A-Extensions': activated.join(', ') };
      const ctx = new CallContext(agentId, principal, requested);
      ctx.clientGone = () => connectionGone(req);
      ctx.usage = usage;

      if (operation.stream) {
        const iterable =
          method === 'SendStreamingMessage' ? this.o.handler.sendStreamingMessage(ctx, v.sendMessageRequest(params)) : this.o.handler.subscribeToTask(ctx, v.idRequest(params), lastEventId(req.headers['last-event-id']));
        const extensions = activated.length ? { 'A2A-Extensions': activated.join(', ') } : undefined;
        return this.stream(req, res, iterable, new JsonRpcSse(this.o.keepAliveMs, id, method, log, setsRequestId(res, streamRequestId), extensions), headers, usage);
      }
      return this.unaryReply(this.unary(ctx, method, params), headers, id, usage, method, log);
    } catch (err) {
      return Promise.resolve(this.failed(err, headers, usage, id, method, log));
    }
  }

  /** A stream's first item (its errors are ordinary JSON-RPC errors), then the stream as SSE. */
  private async stream(
    req: IncomingMessage,
    res: ServerResponse,
    iterable: AsyncIterable<StreamItem>,
    sse: JsonRpcSse,
    headers: Record<string, string>,
    usage: ReturnType<typeof usageOf>,
  ): Promise<undefined | JsonRpcReply> {
    try {
      const it = iterable[Symbol.asyncIterator]();
      const first = await it.next();
      await pipeSse(req, res, it, first, sse);
      return undefined;
    } catch (err) {
      return this.failed(err, headers, usage, sse.id, sse.method, sse.log);
    }
  }

  /**
   * A unary call's reply once the core answers: two reactions on the answer that share the reply's
   * parts, where an async function kept a generator and a frame of every register until then
   * (issue 26, docs/benchmarks.md frame31). The same turns as `await`: a reaction runs one turn
   * after the answer settles; a throw while making the reply is a failure reply, as in the try it was.
   */
  private unaryReply(
    answer: Promise<unknown>,
    headers: Record<string, string>,
    id: Id,
    usage: ReturnType<typeof usageOf>,
    method: string,
    log: { error(obj: object, msg?: string): void } | undefined,
  ): Promise<JsonRpcReply> {
    // Promise.resolve: what `await` did with a handler that answers a plain value (the same promise otherwise).
    return Promise.resolve(answer).then(
      (r) => {
        try {
          return resultReply(headers, id, r);
        } catch (err) {
          return this.failed(err, headers, usage, id, method, log);
        }
      },
      (err: unknown) => this.failed(err, headers, usage, id, method, log),
    );
  }

  /** A call that failed: an internal error logged, the JSON-RPC error reply. */
  private failed(err: unknown, headers: Record<string, string>, usage: ReturnType<typeof usageOf>, id: Id, method: string, log: { error(obj: object, msg?: string): void } | undefined): JsonRpcReply {
    logInternal(err, method, log);
    return failure(headers, usage, id, err);
  }

  /**
   * Not async: an async function returning the handler's promise resolves its own with it, two
   * microtask turns and a job more per call (issue 26). A validation error thrown here is thrown to
   * `handle`'s try, as a rejection would be.
   */
  private unary(ctx: CallContext, method: string, p: Record<string, unknown>): Promise<unknown> {
    const h = this.o.handler;
    switch (method) {
      case 'SendMessage':
        return h.sendMessage(ctx, v.sendMessageRequest(p));
      case 'GetTask': {
        const r = v.idRequest(p);
        return h.getTask(ctx, { id: r.id, historyLength: v.historyLength(p.historyLength ?? p.history_length) });
      }
      case 'ListTasks':
        return h.listTasks(ctx, v.listTasksRequest(p));
      case 'CancelTask': {
        const r = v.idRequest(p);
        // parsed from the request's JSON text, so every value under it is JSON
        return h.cancelTask(ctx, { id: r.id, ...(v.isObject(p.metadata) ? { metadata: p.metadata as JsonObject } : {}) });
      }
      case 'CreateTaskPushNotificationConfig': {
        const cfg = v.pushConfig(p, 'params');
        if (!cfg.taskId) throw invalidParams('taskId', 'is required');
        return h.createTaskPushNotificationConfig(ctx, cfg);
      }
      case 'GetTaskPushNotificationConfig':
        return h.getTaskPushNotificationConfig(ctx, v.pushConfigRef(p));
      case 'ListTaskPushNotificationConfigs':
        return h.listTaskPushNotificationConfigs(ctx, v.listPushConfigsRequest(p));
      case 'DeleteTaskPushNotificationConfig':
        return h.deleteTaskPushNotificationConfig(ctx, v.pushConfigRef(p)).then(() => undefined);
      case 'GetExtendedAgentCard':
        return h.getExtendedAgentCard(ctx);
    }
    throw new A2AError('MethodNotFound');
  }
}
