/**
 * A2A v1.0 gRPC (spec §10): lf.a2a.v1.A2AService through @grpc/grpc-js, messages converted with
 * the same codec the server uses (src/protocol/a2a/grpc-codec), `a2a-version` and credentials as
 * call metadata. The card's gRPC `url` is `host:port` (proto comment at HEAD); a `grpcs://` or
 * `https://` prefix, or `tls: true`, selects TLS.
 */
import * as grpc from '@grpc/grpc-js';
import { a2aServiceDefinition } from '../../protocol/a2a/grpc-proto.js';
import { decodeStatusDetails, STATUS_DETAILS_KEY } from '../../protocol/a2a/grpc-status-details.js';
import { A2AError } from '../../protocol/a2a/errors.js';
import {
  decodeAgentCard,
  decodeListTaskPushNotificationConfigsResponse,
  decodeListTasksResponse,
  decodeSendMessageResponse,
  decodeStreamResponse,
  decodeTask,
  decodeTaskPushNotificationConfig,
  encodeCancelTaskRequest,
  encodeGetTaskRequest,
  encodeListTaskPushNotificationConfigsRequest,
  encodeListTasksRequest,
  encodeSendMessageRequest,
  encodeSubscribeToTaskRequest,
  encodeTaskPushConfigRef,
  encodeTaskPushNotificationConfig,
} from '../../protocol/a2a/grpc-codec.js';
import type { AuthProvider } from '../auth.js';
import { A2AClientError, reasonOf, TransportError } from '../errors.js';
import { invalidResponse } from '../responses.js';
import type { StreamEvent, Transport } from '../transport.js';
import type { WireStreamResponse } from '../../protocol/a2a/grpc-codec-wire.js';

export interface GrpcTransportOptions {
  auth?: AuthProvider;
  extensions?: string[];
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** TLS (default: only when the url says grpcs:// or https://) */
  tls?: boolean;
}

type Unary = (req: object, md: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res: unknown) => void) => grpc.ClientUnaryCall;
type ServerStream = (req: object, md: grpc.Metadata, opts?: grpc.CallOptions) => grpc.ClientReadableStream<unknown>;

let clientCtor: grpc.ServiceClientConstructor | undefined;

/** Decoders throw A2AError('InvalidParams') on a missing REQUIRED field; from a server that is its fault. */
function decoded<T>(decode: () => T): T {
  try {
    return decode();
  } catch (err) {
    if (err instanceof A2AError) throw invalidResponse(err.fieldViolations?.[0]?.field ?? 'response', err.fieldViolations?.[0]?.description ?? err.message);
    throw err;
  }
}

/** A failed call as A2AClientError (with the google.rpc details), or TransportError when the channel itself failed. */
export function grpcCallError(err: grpc.ServiceError, target: string): Error {
  if (typeof err.code !== 'number') return new TransportError(`gRPC stream from ${target} broke: ${err.message}`, target, { cause: err });
  return toClientError(err, target);
}

function toClientError(err: grpc.ServiceError, target: string): Error {
  const bytes = err.metadata?.get(STATUS_DETAILS_KEY)[0];
  const status = Buffer.isBuffer(bytes) ? decodeStatusDetails(bytes) : undefined;
  // UNAVAILABLE without A2A details is the channel failing (refused, reset): the interface is unusable.
  if (!status && (err.code === grpc.status.UNAVAILABLE || err.code === grpc.status.UNIMPLEMENTED)) {
    return new TransportError(`gRPC ${target}: ${err.details || grpc.status[err.code]}`, target, { cause: err });
  }
  const reason = status ? reasonOf(status.details) : undefined;
  return new A2AClientError(status?.message || err.details || grpc.status[err.code] || 'gRPC error', {
    grpcCode: err.code,
    ...(reason === undefined ? {} : { reason }),
    ...(status ? { details: status.details } : {}),
  });
}

export function grpcTransport(url: string, opts: GrpcTransportOptions = {}, tenant?: string): Transport {
  const secure = opts.tls ?? /^(grpcs|https):\/\//i.test(url);
  const target = url.replace(/^[a-z]+:\/\//i, '').replace(/\/+$/, '');
  clientCtor ??= grpc.makeGenericClientConstructor(a2aServiceDefinition(), 'A2AService');
  // a generic client's methods exist only at run time, one per rpc of the service definition
  const client = new clientCtor(target, secure ? grpc.credentials.createSsl() : grpc.credentials.createInsecure()) as grpc.Client & Record<string, Unary & ServerStream>;
  const withTenant = <T extends object>(req: T): T => (tenant ? { ...req, tenant } : req);

  async function metadata(): Promise<grpc.Metadata> {
    const md = new grpc.Metadata();
    for (const [k, v] of Object.entries({ ...(opts.headers ?? {}), ...(opts.auth ? await opts.auth.headers() : {}) })) md.set(k.toLowerCase(), v);
    md.set('a2a-version', '1.0');
    if (opts.extensions?.length) md.set('a2a-extensions', opts.extensions.join(','));
    return md;
  }

  async function unary<W, T>(method: string, wire: object, decode: (w: W) => T, signal?: AbortSignal): Promise<T> {
    const md = await metadata();
    const result = await new Promise<unknown>((resolve, reject) => {
      const call = client[method]!(wire, md, { deadline: Date.now() + (opts.timeoutMs ?? 30_000) }, (err, res) => (err ? reject(toClientError(err, target)) : resolve(res)));
      signal?.addEventListener('abort', () => call.cancel(), { once: true });
    });
    // the answer is the method's response message, as grpc-js decoded it
    return decoded(() => decode(result as W));
  }

  async function* stream(method: string, wire: object, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
    const call = (client[method] as ServerStream)(wire, await metadata());
    const onAbort = () => call.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for await (const msg of call) yield { response: decoded(() => decodeStreamResponse(msg as WireStreamResponse)) };
    } catch (err) {
      if (signal?.aborted) throw err;
      const e = err as grpc.ServiceError;
      // A stream cut after it started has no A2A status: report it as a broken transport so it can be resumed.
      throw typeof e.code === 'number' ? toClientError(e, target) : new TransportError(`gRPC stream from ${target} broke: ${e.message}`, target, { cause: err });
    } finally {
      signal?.removeEventListener('abort', onAbort);
      call.cancel();
    }
  }

  return {
    binding: 'GRPC',
    protocolVersion: '1.0',
    url,
    sendMessage: (req, o) => unary('SendMessage', encodeSendMessageRequest(withTenant(req)), decodeSendMessageResponse, o?.signal),
    sendStreamingMessage: (req, o) => stream('SendStreamingMessage', encodeSendMessageRequest(withTenant(req)), o?.signal),
    getTask: (req, o) => unary('GetTask', encodeGetTaskRequest(withTenant(req)), decodeTask, o?.signal),
    listTasks: (req, o) => unary('ListTasks', encodeListTasksRequest(withTenant(req)), decodeListTasksResponse, o?.signal),
    cancelTask: (req, o) => unary('CancelTask', encodeCancelTaskRequest(withTenant(req)), decodeTask, o?.signal),
    subscribeToTask: (req, o) => stream('SubscribeToTask', encodeSubscribeToTaskRequest(withTenant(req)), o?.signal),
    createTaskPushNotificationConfig: (c, o) => unary('CreateTaskPushNotificationConfig', encodeTaskPushNotificationConfig(withTenant(c)), decodeTaskPushNotificationConfig, o?.signal),
    getTaskPushNotificationConfig: (ref, o) => unary('GetTaskPushNotificationConfig', encodeTaskPushConfigRef(withTenant(ref)), decodeTaskPushNotificationConfig, o?.signal),
    listTaskPushNotificationConfigs: (req, o) => unary('ListTaskPushNotificationConfigs', encodeListTaskPushNotificationConfigsRequest(withTenant(req)), decodeListTaskPushNotificationConfigsResponse, o?.signal),
    deleteTaskPushNotificationConfig: async (ref, o) => void (await unary('DeleteTaskPushNotificationConfig', encodeTaskPushConfigRef(withTenant(ref)), () => undefined, o?.signal)),
    getExtendedAgentCard: (o) => unary('GetExtendedAgentCard', tenant ? { tenant } : {}, decodeAgentCard, o?.signal),
    close: () => client.close(),
  };
}
