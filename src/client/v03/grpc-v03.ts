/**
 * A2A v0.3 gRPC: service `a2a.v1.A2AService` (proto/a2a-v03.proto), resource names instead of ids
 * (`tasks/{id}`, `tasks/{id}/pushNotificationConfigs/{cid}`), `TaskSubscription` for subscribe,
 * no tenant and no `a2a-version` (v0.3 had neither). Requests are built in the v0.3 proto JSON form
 * (requests.ts) and packed with the server's own codec (src/protocol/a2a-v03/grpc-codec); answers
 * are unpacked to that JSON form and read by results.ts like v0.3 HTTP+JSON answers.
 */
import * as grpc from '@grpc/grpc-js';
import { v03ServiceDefinition } from '../../protocol/a2a-v03/grpc-proto.js';
import { messageToWire } from '../../protocol/a2a-v03/grpc-codec.js';
import { pushNotificationConfigFromV1 } from '../../protocol/a2a-v03/push.js';
import { decodeBytes, decodeStruct, decodeTimestamp, encodeStruct } from '../../protocol/a2a/grpc-codec-wkt.js';
import type { JsonObject } from '../../protocol/a2a/types.js';
import type { WireBytes, WireStruct, WireTimestamp } from '../../protocol/a2a/grpc-codec-wire.js';
import { isObject } from '../http.js';
import type { StreamEvent, Transport } from '../transport.js';
import { grpcCallError, type GrpcTransportOptions } from '../transports/grpc.js';
import { agentCardFromV03 } from './card.js';
import { noListTasksInV03 } from './jsonrpc-v03.js';
import { sendBodyToV03Proto } from './requests.js';
import { fromV03, pushConfigFromV03, sendResponseFromV03, streamResponseFromV03, taskFromV03 } from './results.js';

type Obj = Record<string, unknown>;
type Unary = (req: object, md: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res: unknown) => void) => grpc.ClientUnaryCall;
type ServerStream = (req: object, md: grpc.Metadata) => grpc.ClientReadableStream<unknown>;

let clientCtor: grpc.ServiceClientConstructor | undefined;

// ---- wire → v0.3 proto JSON: undo Struct, Timestamp, bytes and the proto-named fields ----

const struct = (v: unknown, field: string): JsonObject | undefined => (isObject(v) ? decodeStruct(v as WireStruct, field) : undefined);

function partToJson(p: Obj): Obj {
  if (typeof p.text === 'string') return { text: p.text };
  if (isObject(p.file)) {
    const f = p.file;
    return {
      file: { ...(f.fileWithUri ? { fileWithUri: f.fileWithUri } : {}), ...(f.fileWithBytes ? { fileWithBytes: decodeBytes(f.fileWithBytes as WireBytes) } : {}), ...(f.mimeType ? { mimeType: f.mimeType } : {}) },
    };
  }
  if (isObject(p.data)) return { data: { data: struct(p.data.data, 'part.data') ?? {} } };
  return {};
}

function messageToJson(m: Obj): Obj {
  return { ...m, content: Array.isArray(m.content) ? m.content.map((p) => partToJson(p as Obj)) : [], ...(m.metadata ? { metadata: struct(m.metadata, 'message.metadata') } : {}) };
}

function statusToJson(s: Obj): Obj {
  return {
    state: s.state,
    ...(isObject(s.update) ? { message: messageToJson(s.update) } : {}),
    ...(isObject(s.timestamp) ? { timestamp: decodeTimestamp(s.timestamp as WireTimestamp, 'status.timestamp') } : {}),
  };
}

function artifactToJson(a: Obj): Obj {
  return { ...a, parts: Array.isArray(a.parts) ? a.parts.map((p) => partToJson(p as Obj)) : [], ...(a.metadata ? { metadata: struct(a.metadata, 'artifact.metadata') } : {}) };
}

function taskToJson(t: Obj): Obj {
  return {
    ...t,
    status: isObject(t.status) ? statusToJson(t.status) : t.status,
    ...(Array.isArray(t.artifacts) ? { artifacts: t.artifacts.map((a) => artifactToJson(a as Obj)) } : {}),
    ...(Array.isArray(t.history) ? { history: t.history.map((m) => messageToJson(m as Obj)) } : {}),
    ...(t.metadata ? { metadata: struct(t.metadata, 'task.metadata') } : {}),
  };
}

/** SendMessageResponse / StreamResponse (`task` | `msg` | `statusUpdate` | `artifactUpdate`). */
function payloadToJson(r: Obj): Obj {
  if (isObject(r.task)) return { task: taskToJson(r.task) };
  if (isObject(r.msg)) return { message: messageToJson(r.msg) };
  if (isObject(r.statusUpdate)) return { statusUpdate: { ...r.statusUpdate, status: statusToJson(r.statusUpdate.status as Obj), metadata: struct(r.statusUpdate.metadata, 'statusUpdate.metadata') } };
  if (isObject(r.artifactUpdate)) return { artifactUpdate: { ...r.artifactUpdate, artifact: artifactToJson(r.artifactUpdate.artifact as Obj), metadata: struct(r.artifactUpdate.metadata, 'artifactUpdate.metadata') } };
  return r;
}

export function grpcV03Transport(url: string, opts: GrpcTransportOptions = {}): Transport {
  const secure = opts.tls ?? /^(grpcs|https):\/\//i.test(url);
  const target = url.replace(/^[a-z]+:\/\//i, '').replace(/\/+$/, '');
  clientCtor ??= grpc.makeGenericClientConstructor(v03ServiceDefinition(), 'LegacyA2AService');
  // a generic client's methods exist only at run time, one per rpc of the service definition
  const client = new clientCtor(target, secure ? grpc.credentials.createSsl() : grpc.credentials.createInsecure()) as grpc.Client & Record<string, Unary & ServerStream>;

  async function metadata(): Promise<grpc.Metadata> {
    const md = new grpc.Metadata();
    for (const [k, v] of Object.entries({ ...(opts.headers ?? {}), ...(opts.auth ? await opts.auth.headers() : {}) })) md.set(k.toLowerCase(), v);
    if (opts.extensions?.length) md.set('x-a2a-extensions', opts.extensions.join(','));
    return md;
  }

  async function unary(method: string, wire: object, signal?: AbortSignal): Promise<Obj> {
    const md = await metadata();
    return new Promise<Obj>((resolve, reject) => {
      const call = client[method]!(wire, md, { deadline: Date.now() + (opts.timeoutMs ?? 30_000) }, (err, res) => (err ? reject(grpcCallError(err, target)) : resolve((res ?? {}) as Obj)));
      signal?.addEventListener('abort', () => call.cancel(), { once: true });
    });
  }

  async function* stream(method: string, wire: object, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
    const call = client[method]!(wire, await metadata()) as grpc.ClientReadableStream<unknown>;
    const onAbort = () => call.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for await (const msg of call) yield { response: streamResponseFromV03(payloadToJson(msg as Obj)) };
    } catch (err) {
      if (signal?.aborted) throw err;
      throw grpcCallError(err as grpc.ServiceError, target);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      call.cancel();
    }
  }

  const sendWire = (req: Parameters<Transport['sendMessage']>[0]) => {
    const body = sendBodyToV03Proto(req) as { message: Parameters<typeof messageToWire>[0]; configuration: Obj; metadata?: JsonObject };
    return { request: messageToWire(body.message), configuration: body.configuration, ...(body.metadata ? { metadata: encodeStruct(body.metadata, 'metadata') } : {}) };
  };
  const configName = (taskId: string, id: string) => `tasks/${taskId}/pushNotificationConfigs/${id}`;

  return {
    binding: 'GRPC',
    protocolVersion: '0.3',
    url,
    sendMessage: async (req, o) => sendResponseFromV03(payloadToJson(await unary('SendMessage', sendWire(req), o?.signal))),
    sendStreamingMessage: (req, o) => stream('SendStreamingMessage', sendWire(req), o?.signal),
    getTask: async (req, o) => fromV03(async () => taskFromV03(taskToJson(await unary('GetTask', { name: `tasks/${req.id}`, ...(req.historyLength ? { historyLength: req.historyLength } : {}) }, o?.signal)))),
    listTasks: async () => {
      throw noListTasksInV03();
    },
    cancelTask: async (req, o) => fromV03(async () => taskFromV03(taskToJson(await unary('CancelTask', { name: `tasks/${req.id}` }, o?.signal)))),
    subscribeToTask: (req, o) => stream('TaskSubscription', { name: `tasks/${req.id}` }, o?.signal),
    createTaskPushNotificationConfig: async (c, o) => {
      const taskId = c.taskId ?? '';
      const wire = { parent: `tasks/${taskId}`, ...(c.id ? { configId: c.id } : {}), config: { name: configName(taskId, c.id ?? ''), pushNotificationConfig: pushNotificationConfigFromV1(c) } };
      return pushConfigFromV03(await unary('CreateTaskPushNotificationConfig', wire, o?.signal));
    },
    getTaskPushNotificationConfig: async (ref, o) => pushConfigFromV03(await unary('GetTaskPushNotificationConfig', { name: configName(ref.taskId, ref.id) }, o?.signal)),
    listTaskPushNotificationConfigs: async (req, o) => {
      const r = await unary('ListTaskPushNotificationConfig', { parent: `tasks/${req.taskId}`, ...(req.pageSize ? { pageSize: req.pageSize } : {}), ...(req.pageToken ? { pageToken: req.pageToken } : {}) }, o?.signal);
      return { configs: (Array.isArray(r.configs) ? r.configs : []).map(pushConfigFromV03), nextPageToken: typeof r.nextPageToken === 'string' ? r.nextPageToken : '' };
    },
    deleteTaskPushNotificationConfig: async (ref, o) => void (await unary('DeleteTaskPushNotificationConfig', { name: configName(ref.taskId, ref.id) }, o?.signal)),
    // Lossy: the v0.3 proto card's oneof security schemes are not read (agentCardFromV03 reads the JSON-RPC card's `type` form).
    getExtendedAgentCard: async (o) => agentCardFromV03(await unary('GetAgentCard', {}, o?.signal)),
    close: () => client.close(),
  };
}
