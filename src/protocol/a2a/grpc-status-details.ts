/**
 * The `grpc-status-details-bin` trailer of an A2A error over gRPC (spec §5.4, §10.6): a serialized
 * google.rpc.Status whose details are Any(ErrorInfo) and, for validation errors, Any(BadRequest).
 * The details are the same ProtoJSON `Any` objects A2AError.details() gives the other bindings,
 * packed here as protobuf. The server encodes it (bindings/a2a-grpc/status.ts), the client decodes it.
 */
import type { JsonObject } from './types.js';
import { messageType } from './grpc-proto.js';

export const STATUS_DETAILS_KEY = 'grpc-status-details-bin';
const TYPE_URL_PREFIX = 'type.googleapis.com/';

/**
 * google.protobuf.Any as proto-loader sees it. protobufjs supplies Any from its bundled definitions,
 * which name the field `type_url` and are not camel-cased by `keepCase: false` (unlike our own protos).
 */
interface WireAny {
  type_url?: string;
  value?: Uint8Array;
}
interface WireStatus {
  code?: number;
  message?: string;
  details?: WireAny[];
}

/** google.rpc.Status, decoded: details are ProtoJSON `Any` objects (`@type` plus the message's fields). */
export interface RpcStatus {
  code: number;
  message: string;
  details: JsonObject[];
}

const RETRY_INFO = `${TYPE_URL_PREFIX}google.rpc.RetryInfo`;

/** ProtoJSON spells a google.protobuf.Duration "42s"; protobuf wants `{seconds}` (RetryInfo is the one detail with one). */
function durationToWire(d: unknown): unknown {
  const m = typeof d === 'string' ? /^(\d+)s$/.exec(d) : null;
  return m ? { seconds: Number(m[1]) } : d;
}

function durationFromWire(d: unknown): unknown {
  if (!d || typeof d !== 'object') return d;
  return `${Number(String((d as { seconds?: unknown }).seconds ?? 0))}s`;
}

function packAny(detail: JsonObject): WireAny | undefined {
  const { '@type': typeUrl, ...fields } = detail;
  if (typeof typeUrl !== 'string' || !typeUrl.startsWith(TYPE_URL_PREFIX)) return undefined;
  const wire = typeUrl === RETRY_INFO ? { ...fields, retryDelay: durationToWire(fields.retryDelay) } : fields;
  return { type_url: typeUrl, value: messageType(typeUrl.slice(TYPE_URL_PREFIX.length)).serialize(wire) };
}

export function encodeStatusDetails(status: RpcStatus): Buffer {
  const details = status.details.map(packAny).filter((a): a is WireAny => a !== undefined);
  return messageType('google.rpc.Status').serialize({ code: status.code, message: status.message, details });
}

/** Reads `grpc-status-details-bin`; detail types this process has not loaded are kept as `@type` only. */
export function decodeStatusDetails(bytes: Buffer): RpcStatus {
  const status = messageType('google.rpc.Status').deserialize(bytes) as WireStatus;
  const details = (status.details ?? []).map((any): JsonObject => {
    const typeUrl = any.type_url ?? '';
    let fields: JsonObject = {};
    try {
      fields = messageType(typeUrl.slice(TYPE_URL_PREFIX.length)).deserialize(Buffer.from(any.value ?? [])) as JsonObject;
      if (typeUrl === RETRY_INFO) fields = { ...fields, retryDelay: durationFromWire(fields.retryDelay) as string };
    } catch {
      // an unknown detail type: keep its name so callers can see it was there
    }
    return { '@type': typeUrl, ...fields };
  });
  return { code: status.code ?? 0, message: status.message ?? '', details };
}
