/**
 * The ten RPCs of the v0.3.0 `a2a.v1.A2AService`: each decodes the v0.3 request through
 * src/protocol/a2a-v03 (grpc-codec → protojson → core request), calls the same A2AHandler operation
 * as its v1.0 counterpart, and encodes the result back to v0.3. v0.3 requests carry no tenant, so
 * every call goes to the server's primary agent (the one whose card declares the v0.3 gRPC interface).
 */
import type { A2AHandler, CallContext, StreamItem } from '../../../core/a2a-handler.js';
import type { StreamResponse, TaskPushNotificationConfig } from '../../../protocol/a2a/types.js';
import {
  agentCardToWire,
  configRefFromName,
  createPushConfigRequestToJson,
  payloadToWire,
  sendMessageRequestToJson,
  taskIdFromName,
  taskPushConfigToWire,
  taskToWire,
  type V03WireCreatePushConfigRequest,
  type V03WireListPushConfigsRequest,
  type V03WireNamed,
  type V03WireSendMessageRequest,
} from '../../../protocol/a2a-v03/grpc-codec.js';
import { agentCardToProto, pushConfigFromProto, sendRequestFromProto, sendResponseToProto, streamResponseToProto, taskPushConfigToProto, taskToProto } from '../../../protocol/a2a-v03/protojson.js';
import type { RpcMethod, StreamMethod, UnaryMethod } from '../../a2a-grpc/methods.js';

export { V03_SERVICE_NAME, v03ServiceDefinition } from '../../../protocol/a2a-v03/grpc-proto.js';

// The `wire as W` casts are sound for the same reason as in src/bindings/a2a-grpc/methods.ts: proto-loader decoded the
// request type of this RPC, whose shape W describes with every field optional.
function unary<W, R>(decode: (wire: W) => R, invoke: (h: A2AHandler, ctx: CallContext, req: R) => Promise<object>): UnaryMethod {
  return {
    kind: 'unary',
    prepare(wire) {
      const req = decode(wire as W);
      return { tenant: undefined, run: (h, ctx) => invoke(h, ctx, req) };
    },
  };
}

const encodeStreamV03 = (r: StreamResponse): object => payloadToWire(streamResponseToProto(r) as Record<string, unknown>);

function stream<W, R>(decode: (wire: W) => R, invoke: (h: A2AHandler, ctx: CallContext, req: R) => AsyncIterable<StreamItem>): StreamMethod {
  return {
    kind: 'stream',
    encode: encodeStreamV03,
    prepare(wire) {
      const req = decode(wire as W);
      return { tenant: undefined, run: (h, ctx) => invoke(h, ctx, req) };
    },
  };
}

const decodeSend = (w: V03WireSendMessageRequest) => sendRequestFromProto(sendMessageRequestToJson(w));

/** v0.3 lists every config of a task in one answer (its page fields were never implemented by the SDKs). */
const LIST_PAGE_SIZE = 100;
const LIST_MAX_PAGES = 100;

async function allConfigs(h: A2AHandler, ctx: CallContext, taskId: string): Promise<TaskPushNotificationConfig[]> {
  const all: TaskPushNotificationConfig[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < LIST_MAX_PAGES; page++) {
    const r = await h.listTaskPushNotificationConfigs(ctx, { taskId, pageSize: LIST_PAGE_SIZE, ...(pageToken ? { pageToken } : {}) });
    all.push(...r.configs);
    if (!r.nextPageToken) break;
    pageToken = r.nextPageToken;
  }
  return all;
}

/** Keyed by the method names of the v0.3.0 a2a.v1.A2AService. */
export const V03_GRPC_METHODS: Readonly<Record<string, RpcMethod>> = {
  SendMessage: unary(decodeSend, async (h, ctx, req) => payloadToWire(sendResponseToProto(await h.sendMessage(ctx, req)))),
  SendStreamingMessage: stream(decodeSend, (h, ctx, req) => h.sendStreamingMessage(ctx, req)),
  GetTask: unary(
    (w: V03WireNamed) => ({ id: taskIdFromName(w.name), ...(w.historyLength ? { historyLength: w.historyLength } : {}) }),
    async (h, ctx, req) => taskToWire(taskToProto(await h.getTask(ctx, req))),
  ),
  CancelTask: unary(
    (w: V03WireNamed) => ({ id: taskIdFromName(w.name) }),
    async (h, ctx, req) => taskToWire(taskToProto(await h.cancelTask(ctx, req))),
  ),
  TaskSubscription: stream(
    (w: V03WireNamed) => ({ id: taskIdFromName(w.name) }),
    (h, ctx, req) => h.subscribeToTask(ctx, req),
  ),
  CreateTaskPushNotificationConfig: unary(
    (w: V03WireCreatePushConfigRequest) => {
      const { taskId, body } = createPushConfigRequestToJson(w);
      return pushConfigFromProto(body, taskId);
    },
    async (h, ctx, cfg) => taskPushConfigToWire(taskPushConfigToProto(await h.createTaskPushNotificationConfig(ctx, cfg), cfg.taskId)),
  ),
  GetTaskPushNotificationConfig: unary(
    (w: V03WireNamed) => configRefFromName(w.name),
    async (h, ctx, ref) => taskPushConfigToWire(taskPushConfigToProto(await h.getTaskPushNotificationConfig(ctx, ref), ref.taskId)),
  ),
  ListTaskPushNotificationConfig: unary(
    (w: V03WireListPushConfigsRequest) => ({ taskId: taskIdFromName(w.parent, 'parent') }),
    async (h, ctx, req) => ({ configs: (await allConfigs(h, ctx, req.taskId)).map((c) => taskPushConfigToWire(taskPushConfigToProto(c, req.taskId))) }),
  ),
  GetAgentCard: unary(
    () => ({}),
    async (h, ctx) => agentCardToWire(agentCardToProto(await h.getExtendedAgentCard(ctx))),
  ),
  DeleteTaskPushNotificationConfig: unary(
    (w: V03WireNamed) => configRefFromName(w.name),
    async (h, ctx, ref) => {
      await h.deleteTaskPushNotificationConfig(ctx, ref);
      return {};
    },
  ),
};
