/**
 * Every error the A2A bindings can return, with its identity on each binding in one table
 * (spec v1.0.1 §5.4 error mapping). Bindings never invent codes: they look them up here.
 */
import type { JsonObject } from './types.js';

export const ERROR_DOMAIN = 'a2a-protocol.org';

/** gRPC status codes by name (google.rpc.Code). */
export const GRPC_CODE = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;
export type GrpcStatusName = keyof typeof GRPC_CODE;

export interface ErrorIdentity {
  /** JSON-RPC error code */
  jsonrpc: number;
  /** HTTP status on the HTTP+JSON binding */
  http: number;
  /** gRPC status name */
  grpc: GrpcStatusName;
  /** google.rpc.ErrorInfo reason */
  reason: string;
  /** default human message */
  message: string;
}

export const A2A_ERRORS = {
  TaskNotFound: { jsonrpc: -32001, http: 404, grpc: 'NOT_FOUND', reason: 'TASK_NOT_FOUND', message: 'Task not found' },
  TaskNotCancelable: { jsonrpc: -32002, http: 400, grpc: 'FAILED_PRECONDITION', reason: 'TASK_NOT_CANCELABLE', message: 'Task cannot be canceled' },
  PushNotificationNotSupported: { jsonrpc: -32003, http: 400, grpc: 'FAILED_PRECONDITION', reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED', message: 'Push notifications are not supported' },
  UnsupportedOperation: { jsonrpc: -32004, http: 400, grpc: 'FAILED_PRECONDITION', reason: 'UNSUPPORTED_OPERATION', message: 'This operation is not supported' },
  ContentTypeNotSupported: { jsonrpc: -32005, http: 400, grpc: 'INVALID_ARGUMENT', reason: 'CONTENT_TYPE_NOT_SUPPORTED', message: 'Incompatible content types' },
  InvalidAgentResponse: { jsonrpc: -32006, http: 500, grpc: 'INTERNAL', reason: 'INVALID_AGENT_RESPONSE', message: 'Invalid agent response' },
  ExtendedAgentCardNotConfigured: { jsonrpc: -32007, http: 400, grpc: 'FAILED_PRECONDITION', reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED', message: 'Extended agent card is not configured' },
  ExtensionSupportRequired: { jsonrpc: -32008, http: 400, grpc: 'FAILED_PRECONDITION', reason: 'EXTENSION_SUPPORT_REQUIRED', message: 'A required extension was not activated' },
  VersionNotSupported: { jsonrpc: -32009, http: 400, grpc: 'FAILED_PRECONDITION', reason: 'VERSION_NOT_SUPPORTED', message: 'Protocol version not supported' },
  // JSON-RPC standard errors, with the HTTP/gRPC identity the spec gives their REST/gRPC equivalents.
  ParseError: { jsonrpc: -32700, http: 400, grpc: 'INVALID_ARGUMENT', reason: 'PARSE_ERROR', message: 'Invalid JSON payload' },
  InvalidRequest: { jsonrpc: -32600, http: 400, grpc: 'INVALID_ARGUMENT', reason: 'INVALID_REQUEST', message: 'Request payload validation error' },
  MethodNotFound: { jsonrpc: -32601, http: 404, grpc: 'UNIMPLEMENTED', reason: 'METHOD_NOT_FOUND', message: 'Method not found' },
  InvalidParams: { jsonrpc: -32602, http: 400, grpc: 'INVALID_ARGUMENT', reason: 'INVALID_PARAMS', message: 'Invalid parameters' },
  Internal: { jsonrpc: -32603, http: 500, grpc: 'INTERNAL', reason: 'INTERNAL_ERROR', message: 'Internal error' },
  // A request body whose HTTP Content-Type is not JSON: an HTTP-layer 415 (see docs/compliance.md).
  UnsupportedMediaType: { jsonrpc: -32005, http: 415, grpc: 'INVALID_ARGUMENT', reason: 'CONTENT_TYPE_NOT_SUPPORTED', message: 'Content-Type must be application/json or application/a2a+json' },
  // Edge errors (not A2A-defined): still rendered in each binding's own error shape.
  PayloadTooLarge: { jsonrpc: -32600, http: 413, grpc: 'RESOURCE_EXHAUSTED', reason: 'PAYLOAD_TOO_LARGE', message: 'Request body too large' },
  // The body did not arrive within limits.bodyReadTimeoutMs (RFC 9110 §15.5.9).
  RequestTimeout: { jsonrpc: -32600, http: 408, grpc: 'DEADLINE_EXCEEDED', reason: 'REQUEST_TIMEOUT', message: 'The request body did not arrive in time' },
  // -32000: JSON-RPC's implementation-defined server error; the ErrorInfo reason tells them apart.
  Unauthenticated: { jsonrpc: -32000, http: 401, grpc: 'UNAUTHENTICATED', reason: 'UNAUTHENTICATED', message: 'Authentication required' },
  PermissionDenied: { jsonrpc: -32000, http: 403, grpc: 'PERMISSION_DENIED', reason: 'PERMISSION_DENIED', message: 'Permission denied' },
  // A limit, not a fault: -32000 (implementation-defined, as for the auth errors) and the reason, never -32603 Internal.
  TooManyStreams: { jsonrpc: -32000, http: 429, grpc: 'RESOURCE_EXHAUSTED', reason: 'TOO_MANY_STREAMS', message: 'Too many open streams on this task' },
  // A quota of the caller's (issue 13, docs/usage.md): a limit like TooManyStreams; the error carries when to retry (quota-exceeded.ts).
  QuotaExceeded: { jsonrpc: -32000, http: 429, grpc: 'RESOURCE_EXHAUSTED', reason: 'QUOTA_EXCEEDED', message: 'Quota exceeded' },
  Timeout: { jsonrpc: -32603, http: 504, grpc: 'DEADLINE_EXCEEDED', reason: 'TIMEOUT', message: 'The request timed out' },
  Unavailable: { jsonrpc: -32603, http: 503, grpc: 'UNAVAILABLE', reason: 'UNAVAILABLE', message: 'Service unavailable' },
} as const satisfies Record<string, ErrorIdentity>;

export type A2AErrorKind = keyof typeof A2A_ERRORS;

export interface FieldViolation {
  field: string;
  description: string;
}

/** An A2A protocol error: a value with a stable identity, safe to show to clients. */
export class A2AError extends Error {
  readonly kind: A2AErrorKind;
  readonly identity: ErrorIdentity;
  readonly metadata?: Record<string, string>;
  readonly fieldViolations?: FieldViolation[];

  constructor(kind: A2AErrorKind, message?: string, opts: { metadata?: Record<string, string>; fieldViolations?: FieldViolation[] } = {}) {
    super(message ?? A2A_ERRORS[kind].message);
    this.name = 'A2AError';
    this.kind = kind;
    this.identity = A2A_ERRORS[kind];
    this.metadata = opts.metadata;
    this.fieldViolations = opts.fieldViolations;
  }

  /** google.rpc.Status details, ProtoJSON `Any` form. */
  details(): JsonObject[] {
    const out: JsonObject[] = [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: this.identity.reason,
        domain: ERROR_DOMAIN,
        ...(this.metadata ? { metadata: this.metadata } : {}),
      },
    ];
    if (this.fieldViolations?.length) {
      out.push({
        '@type': 'type.googleapis.com/google.rpc.BadRequest',
        fieldViolations: this.fieldViolations.map((v) => ({ field: v.field, description: v.description })),
      });
    }
    return out;
  }
}

export const invalidParams = (field: string, description: string): A2AError => new A2AError('InvalidParams', `Invalid parameter '${field}': ${description}`, { fieldViolations: [{ field, description }] });

/**
 * Error codes meaning a backing service (the database, the bus) cannot be reached right now:
 * socket errors, and PostgreSQL's connection_exception (08…) and operator_intervention (57P0…)
 * classes. The client gets Unavailable (503) and can retry; nothing was acknowledged.
 */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', '57P01', '57P02', '57P03']);
const UNREACHABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is closed/;

function isUnreachable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 3) return false;
  const { code, message, cause, errors } = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || code.startsWith('08'))) return true;
  if (typeof message === 'string' && UNREACHABLE_MESSAGES.test(message)) return true;
  if (Array.isArray(errors) && errors.some((e) => isUnreachable(e, depth + 1))) return true;
  return isUnreachable(cause, depth + 1);
}

/**
 * Anything that is not an A2AError becomes a generic internal error, or Unavailable when a backing
 * service is unreachable; its text never reaches clients.
 */
export function toA2AError(err: unknown): A2AError {
  if (err instanceof A2AError) return err;
  return isUnreachable(err) ? new A2AError('Unavailable', 'A backing service is unreachable; retry shortly') : new A2AError('Internal');
}
