/**
 * Errors the client throws. Two families, because callers act on them differently:
 * - `A2AClientError`: the agent answered with an A2A error (TaskNotFound, InvalidParams…). It is
 *   classified by the ErrorInfo `reason` or the JSON-RPC code, never by HTTP status alone
 *   (spec §5.4: v1.0.0 peers send other HTTP statuses for the same error).
 * - `TransportError`: the interface could not be used at all (connection refused or dropped, TLS,
 *   a non-A2A answer such as an HTML 404 or a proxy's 502). The client falls back to the next
 *   interface of the card on these, and a dropped stream is resumed.
 */
import { A2A_ERRORS, type A2AErrorKind } from '../protocol/a2a/errors.js';
import type { JsonObject } from '../protocol/a2a/types.js';

const KIND_BY_REASON = new Map<string, A2AErrorKind>(
  (Object.entries(A2A_ERRORS) as Array<[A2AErrorKind, (typeof A2A_ERRORS)[A2AErrorKind]]>)
    // UnsupportedMediaType shares CONTENT_TYPE_NOT_SUPPORTED with ContentTypeNotSupported: keep the A2A one.
    .filter(([kind]) => kind !== 'UnsupportedMediaType')
    .map(([kind, id]) => [id.reason, kind]),
);

/** JSON-RPC codes of the A2A-defined errors (-32001…-32009) and the standard ones, by code. */
const KIND_BY_CODE = new Map<number, A2AErrorKind>([
  [-32001, 'TaskNotFound'],
  [-32002, 'TaskNotCancelable'],
  [-32003, 'PushNotificationNotSupported'],
  [-32004, 'UnsupportedOperation'],
  [-32005, 'ContentTypeNotSupported'],
  [-32006, 'InvalidAgentResponse'],
  [-32007, 'ExtendedAgentCardNotConfigured'],
  [-32008, 'ExtensionSupportRequired'],
  [-32009, 'VersionNotSupported'],
  [-32700, 'ParseError'],
  [-32600, 'InvalidRequest'],
  [-32601, 'MethodNotFound'],
  [-32602, 'InvalidParams'],
  [-32603, 'Internal'],
]);

export interface A2AClientErrorInit {
  /** ErrorInfo reason, when the server sent one */
  reason?: string;
  /** JSON-RPC error code (JSON-RPC bindings) */
  code?: number;
  /** HTTP status (HTTP bindings) */
  httpStatus?: number;
  /** gRPC status code (gRPC binding) */
  grpcCode?: number;
  details?: JsonObject[];
  data?: unknown;
}

export class A2AClientError extends Error {
  /** the A2A error this is, when it could be identified by reason, code or status */
  readonly kind: A2AErrorKind | undefined;
  readonly reason: string | undefined;
  readonly code: number | undefined;
  readonly httpStatus: number | undefined;
  readonly grpcCode: number | undefined;
  readonly details: JsonObject[];
  readonly data: unknown;

  constructor(message: string, init: A2AClientErrorInit = {}) {
    super(message);
    this.name = 'A2AClientError';
    this.reason = init.reason;
    this.code = init.code;
    this.httpStatus = init.httpStatus;
    this.grpcCode = init.grpcCode;
    this.details = init.details ?? [];
    this.data = init.data;
    this.kind = classify(init);
  }

  /** true for 401 / UNAUTHENTICATED: the credential is missing, expired or was refused */
  get isUnauthenticated(): boolean {
    return this.kind === 'Unauthenticated' || this.httpStatus === 401 || this.grpcCode === 16;
  }
}

function classify(init: A2AClientErrorInit): A2AErrorKind | undefined {
  if (init.reason !== undefined) {
    const byReason = KIND_BY_REASON.get(init.reason);
    if (byReason) return byReason;
  }
  if (init.httpStatus === 401 || init.grpcCode === 16) return 'Unauthenticated';
  if (init.httpStatus === 403 || init.grpcCode === 7) return 'PermissionDenied';
  if (init.code !== undefined) return KIND_BY_CODE.get(init.code);
  return undefined;
}

/** The ErrorInfo reason among google.rpc details (`@type` …ErrorInfo). */
export function reasonOf(details: unknown): string | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const d of details) {
    if (d && typeof d === 'object' && typeof (d as JsonObject)['@type'] === 'string' && ((d as JsonObject)['@type'] as string).endsWith('google.rpc.ErrorInfo')) {
      const reason = (d as JsonObject).reason;
      if (typeof reason === 'string') return reason;
    }
  }
  return undefined;
}

export class TransportError extends Error {
  /** the interface URL that failed */
  readonly url: string;
  constructor(message: string, url: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'TransportError';
    this.url = url;
  }
}

/** The card could not be fetched, parsed or verified. */
export class AgentCardError extends Error {
  readonly url: string;
  readonly status: number | undefined;
  constructor(message: string, url: string, options: { cause?: unknown; status?: number } = {}) {
    super(message, { cause: options.cause });
    this.name = 'AgentCardError';
    this.url = url;
    this.status = options.status;
  }
}

/** The card is not signed, or no signature verifies with the trusted keys. */
export class CardSignatureError extends AgentCardError {
  constructor(message: string, url: string) {
    super(message, url);
    this.name = 'CardSignatureError';
  }
}

/** The card names no interface this client can use (binding or version). */
export class NoUsableInterfaceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NoUsableInterfaceError';
  }
}

/** What fetch threw (DNS, refused, reset, TLS, abort) as a TransportError naming the URL. */
export function networkError(url: string, err: unknown): TransportError {
  if (err instanceof TransportError) return err;
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  const why = cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
  return new TransportError(`cannot reach ${url}: ${why}`, url, { cause: err });
}
