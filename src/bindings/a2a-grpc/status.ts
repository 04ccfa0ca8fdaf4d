/**
 * A2A errors as gRPC statuses (spec §5.4, §10.6): the status code comes from the error table, and the
 * `grpc-status-details-bin` trailer carries a serialized google.rpc.Status whose details are
 * Any(ErrorInfo) and, for validation errors, Any(BadRequest). The details are the same ProtoJSON
 * `Any` objects A2AError.details() gives the other bindings, packed here as protobuf.
 */
import { Metadata, type StatusObject } from '@grpc/grpc-js';
import { A2AError, GRPC_CODE } from '../../protocol/a2a/errors.js';
import type { JsonObject } from '../../protocol/a2a/types.js';
import { messageType } from './proto.js';

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

function packAny(detail: JsonObject): WireAny | undefined {
  const { '@type': typeUrl, ...fields } = detail;
  if (typeof typeUrl !== 'string' || !typeUrl.startsWith(TYPE_URL_PREFIX)) return undefined;
  return { type_url: typeUrl, value: messageType(typeUrl.slice(TYPE_URL_PREFIX.length)).serialize(fields) };
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
    } catch {
      // an unknown detail type: keep its name so callers can see it was there
    }
    return { '@type': typeUrl, ...fields };
  });
  return { code: status.code ?? 0, message: status.message ?? '', details };
}

/** The status a grpc-js handler returns (unary callback error, or emitted on a server stream). */
export function grpcStatusFor(err: A2AError): Partial<StatusObject> {
  const code = GRPC_CODE[err.identity.grpc];
  const metadata = new Metadata();
  metadata.set(STATUS_DETAILS_KEY, encodeStatusDetails({ code, message: err.message, details: err.details() }));
  return { code, details: err.message, metadata };
}
