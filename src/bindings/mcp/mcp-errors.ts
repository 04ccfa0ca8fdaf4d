/**
 * The JSON-RPC error codes the MCP face answers with, in one table, as the A2A errors are in
 * protocol/a2a/errors.ts: every MCP answer names its code from here (no literal codes in the
 * face's files), and usage records name an error's outcome from the same rows.
 */
import type { A2AError } from '../../protocol/a2a/errors.js';
import { jsonRpcHttpStatus } from '../../protocol/jsonrpc/http-status.js';

export const MCP_ERRORS = {
  ParseError: { code: -32700, reason: 'PARSE_ERROR' },
  InvalidRequest: { code: -32600, reason: 'INVALID_REQUEST' },
  MethodNotFound: { code: -32601, reason: 'METHOD_NOT_FOUND' },
  InvalidParams: { code: -32602, reason: 'INVALID_PARAMS' },
  InternalError: { code: -32603, reason: 'INTERNAL_ERROR' },
  /**
   * A refusal of the server's own (a Host/Origin the DNS-rebinding check refuses, a quota): the
   * implementation-defined server-error range of JSON-RPC 2.0, as on A2A. Not one of JSON-RPC's
   * reserved names: a usage record names it `JSONRPC_-32000`.
   */
  ServerError: { code: -32000, reason: undefined },
  /** the transport refuses the request: no such session, no credential or one without an MCP scope (the SDK's transports answer so) */
  TransportRefused: { code: -32001, reason: undefined },
  /** 2026-07-28: the `Mcp-Name` header does not carry the request's target */
  HeaderMismatch: { code: -32020, reason: undefined },
  /** 2026-07-28: the request needs a capability (an extension) the client did not declare */
  MissingCapability: { code: -32021, reason: undefined },
} as const;

/** Each code by its name: `MCP_CODE.InvalidParams` is -32602. */
export const MCP_CODE = {
  ParseError: MCP_ERRORS.ParseError.code,
  InvalidRequest: MCP_ERRORS.InvalidRequest.code,
  MethodNotFound: MCP_ERRORS.MethodNotFound.code,
  InvalidParams: MCP_ERRORS.InvalidParams.code,
  InternalError: MCP_ERRORS.InternalError.code,
  ServerError: MCP_ERRORS.ServerError.code,
  TransportRefused: MCP_ERRORS.TransportRefused.code,
  HeaderMismatch: MCP_ERRORS.HeaderMismatch.code,
  MissingCapability: MCP_ERRORS.MissingCapability.code,
} as const;

/**
 * A request refused before an MCP message was read (the edge's body limits and deadline, the
 * server starting or failing to start, the face throwing, an issuer that cannot be reached), in
 * MCP's shape: the HTTP status says what happened (protocol/jsonrpc/http-status.ts); the server's
 * own trouble is InternalError, the request's is InvalidRequest.
 */
export function mcpRefusal(err: A2AError): { status: number; code: number } {
  const status = jsonRpcHttpStatus(err, 'edge');
  return { status, code: status >= 500 ? MCP_CODE.InternalError : MCP_CODE.InvalidRequest };
}

const REASONS: ReadonlyMap<number, string> = new Map(Object.values(MCP_ERRORS).flatMap((e) => (e.reason === undefined ? [] : [[e.code, e.reason] as const])));

/** The outcome a usage record gives a JSON-RPC error code: its name in the table, else `JSONRPC_<code>`. */
export function jsonRpcOutcome(code: number): string {
  return REASONS.get(code) ?? `JSONRPC_${Math.trunc(code)}`;
}
