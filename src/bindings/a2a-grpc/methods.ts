/**
 * The eleven A2AService RPCs: how each decodes its request, which A2AHandler operation it calls and
 * how it encodes the result. Request decoding is where REQUIRED fields are checked, before the core
 * is touched. The server wraps these with version, auth, tenant and extension handling.
 */
import type { A2AHandler, CallContext, StreamItem } from '../../core/a2a-handler.js';
import type { StreamResponse } from '../../protocol/a2a/types.js';
import {
  decodeCancelTaskRequest,
  decodeCreateTaskPushNotificationConfigRequest,
  decodeGetExtendedAgentCardRequest,
  decodeGetTaskRequest,
  decodeListTaskPushNotificationConfigsRequest,
  decodeListTasksRequest,
  decodeSendMessageRequest,
  decodeSubscribeToTaskRequest,
  decodeTaskPushConfigRef,
  encodeAgentCard,
  encodeListTaskPushNotificationConfigsResponse,
  encodeListTasksResponse,
  encodeSendMessageResponse,
  encodeTask,
  encodeTaskPushNotificationConfig,
  type WireEmpty,
} from '../../protocol/a2a/grpc-codec.js';

/** A decoded request, ready to run once the binding knows the agent and the caller. */
export interface PreparedCall<R> {
  /** the request's `tenant`, which selects the agent; undefined when empty */
  tenant: string | undefined;
  run(handler: A2AHandler, ctx: CallContext): R;
}

export interface UnaryMethod {
  kind: 'unary';
  prepare(wire: unknown): PreparedCall<Promise<object>>;
}
export interface StreamMethod {
  kind: 'stream';
  prepare(wire: unknown): PreparedCall<AsyncIterable<StreamItem>>;
  /** how each item goes on the wire; default: the v1.0 StreamResponse */
  encode?: (response: StreamResponse) => object;
}
export type RpcMethod = UnaryMethod | StreamMethod;

type Tenanted = { tenant?: string };

// The `wire as W` casts are sound: grpc-js hands us what proto-loader decoded for this RPC's request
// type, whose shape the Wire* types describe with every field optional.
function unary<W, R extends Tenanted>(decode: (wire: W) => R, invoke: (h: A2AHandler, ctx: CallContext, req: R) => Promise<object>): UnaryMethod {
  return {
    kind: 'unary',
    prepare(wire) {
      const req = decode(wire as W);
      return { tenant: req.tenant, run: (h, ctx) => invoke(h, ctx, req) };
    },
  };
}

function stream<W, R extends Tenanted>(decode: (wire: W) => R, invoke: (h: A2AHandler, ctx: CallContext, req: R) => AsyncIterable<StreamItem>): StreamMethod {
  return {
    kind: 'stream',
    prepare(wire) {
      const req = decode(wire as W);
      return { tenant: req.tenant, run: (h, ctx) => invoke(h, ctx, req) };
    },
  };
}

const EMPTY: WireEmpty = {};

/** Keyed by the method names of lf.a2a.v1.A2AService. */
export const A2A_METHODS: Readonly<Record<string, RpcMethod>> = {
  SendMessage: unary(decodeSendMessageRequest, async (h, ctx, req) => encodeSendMessageResponse(await h.sendMessage(ctx, req))),
  SendStreamingMessage: stream(decodeSendMessageRequest, (h, ctx, req) => h.sendStreamingMessage(ctx, req)),
  GetTask: unary(decodeGetTaskRequest, async (h, ctx, req) => encodeTask(await h.getTask(ctx, req))),
  ListTasks: unary(decodeListTasksRequest, async (h, ctx, req) => encodeListTasksResponse(await h.listTasks(ctx, req))),
  CancelTask: unary(decodeCancelTaskRequest, async (h, ctx, req) => encodeTask(await h.cancelTask(ctx, req))),
  SubscribeToTask: stream(decodeSubscribeToTaskRequest, (h, ctx, req) => h.subscribeToTask(ctx, req)),
  CreateTaskPushNotificationConfig: unary(decodeCreateTaskPushNotificationConfigRequest, async (h, ctx, config) => encodeTaskPushNotificationConfig(await h.createTaskPushNotificationConfig(ctx, config))),
  GetTaskPushNotificationConfig: unary(decodeTaskPushConfigRef, async (h, ctx, ref) => encodeTaskPushNotificationConfig(await h.getTaskPushNotificationConfig(ctx, ref))),
  ListTaskPushNotificationConfigs: unary(decodeListTaskPushNotificationConfigsRequest, async (h, ctx, req) => encodeListTaskPushNotificationConfigsResponse(await h.listTaskPushNotificationConfigs(ctx, req))),
  GetExtendedAgentCard: unary(decodeGetExtendedAgentCardRequest, async (h, ctx) => encodeAgentCard(await h.getExtendedAgentCard(ctx))),
  DeleteTaskPushNotificationConfig: unary(decodeTaskPushConfigRef, async (h, ctx, ref) => {
    await h.deleteTaskPushNotificationConfig(ctx, ref);
    return EMPTY;
  }),
};
