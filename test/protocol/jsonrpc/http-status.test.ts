/**
 * The one JSON-RPC status function (protocol/jsonrpc/http-status.ts) and MCP's encoding of an
 * edge refusal from it: the HTTP status each JSON-RPC error goes out with, on every face.
 */
import { describe, expect, it } from 'vitest';
import { MCP_CODE, mcpRefusal } from '../../../src/bindings/mcp/mcp-errors.js';
import { A2A_ERRORS, A2AError, type A2AErrorKind } from '../../../src/protocol/a2a/errors.js';
import { jsonRpcHttpStatus } from '../../../src/protocol/jsonrpc/http-status.js';

describe('jsonRpcHttpStatus', () => {
  it('a call’s error is 200 (the error is in the body), except a refused credential, a refused permission and an outage', () => {
    const expected: Partial<Record<A2AErrorKind, number>> = { Unauthenticated: 401, PermissionDenied: 403, Unavailable: 503 };
    for (const kind of Object.keys(A2A_ERRORS) as A2AErrorKind[]) {
      expect([kind, jsonRpcHttpStatus(new A2AError(kind), 'call')]).toEqual([kind, expected[kind] ?? 200]);
    }
  });

  it('a quota refusal, a timeout and an internal error in a call are 200 too (JSON-RPC errors, not HTTP ones)', () => {
    expect(jsonRpcHttpStatus(new A2AError('QuotaExceeded'), 'call')).toBe(200);
    expect(jsonRpcHttpStatus(new A2AError('Timeout'), 'call')).toBe(200);
    expect(jsonRpcHttpStatus(new A2AError('Internal'), 'call')).toBe(200);
  });

  it('a request the edge refused before a JSON-RPC message was read says what happened in its HTTP status', () => {
    const table: Array<[A2AErrorKind, number]> = [
      ['PayloadTooLarge', 413],
      ['RequestTimeout', 408],
      ['Unavailable', 503],
      ['Internal', 500],
      ['InvalidRequest', 400],
      ['UnsupportedMediaType', 415],
      ['Unauthenticated', 401],
    ];
    for (const [kind, status] of table) expect([kind, jsonRpcHttpStatus(new A2AError(kind), 'edge')]).toEqual([kind, status]);
  });
});

describe('mcpRefusal', () => {
  it('the server’s own trouble is InternalError, the request’s is InvalidRequest, with the edge status', () => {
    expect(mcpRefusal(new A2AError('PayloadTooLarge'))).toEqual({ status: 413, code: MCP_CODE.InvalidRequest });
    expect(mcpRefusal(new A2AError('RequestTimeout'))).toEqual({ status: 408, code: MCP_CODE.InvalidRequest });
    expect(mcpRefusal(new A2AError('Unavailable'))).toEqual({ status: 503, code: MCP_CODE.InternalError });
    expect(mcpRefusal(new A2AError('Internal'))).toEqual({ status: 500, code: MCP_CODE.InternalError });
    expect(MCP_CODE.InvalidRequest).toBe(-32600);
    expect(MCP_CODE.InternalError).toBe(-32603);
  });
});
