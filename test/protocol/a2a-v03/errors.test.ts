/** Codes and default messages as in specification/json/a2a.json at tag v0.3.0. */
import { describe, expect, it } from 'vitest';
import { A2AError, invalidParams, type A2AErrorKind } from '../../../src/protocol/a2a/errors.js';
import { errorFromV1 } from '../../../src/protocol/a2a-v03/errors.js';

describe('v0.3 errors', () => {
  it('keeps the v0.3.0 codes and default messages of every A2A error', () => {
    const table: Array<[A2AErrorKind, number, string]> = [
      ['TaskNotFound', -32001, 'Task not found'],
      ['TaskNotCancelable', -32002, 'Task cannot be canceled'],
      ['PushNotificationNotSupported', -32003, 'Push Notification is not supported'],
      ['UnsupportedOperation', -32004, 'This operation is not supported'],
      ['ContentTypeNotSupported', -32005, 'Incompatible content types'],
      ['InvalidAgentResponse', -32006, 'Invalid agent response'],
      ['ExtendedAgentCardNotConfigured', -32007, 'Authenticated Extended Card is not configured'],
      ['ParseError', -32700, 'Invalid JSON payload'],
      ['InvalidRequest', -32600, 'Request payload validation error'],
      ['MethodNotFound', -32601, 'Method not found'],
      ['InvalidParams', -32602, 'Invalid parameters'],
      ['Internal', -32603, 'Internal error'],
    ];
    for (const [kind, code, message] of table) expect(errorFromV1(new A2AError(kind)), kind).toMatchObject({ code, message });
  });

  it('maps the v1.0-only -32008/-32009 to InvalidRequest, keeping the reason', () => {
    expect(errorFromV1(new A2AError('ExtensionSupportRequired', 'need urn:x', { metadata: { requiredExtensions: 'urn:x' } }))).toEqual({
      code: -32600,
      message: 'need urn:x',
      data: { reason: 'EXTENSION_SUPPORT_REQUIRED', metadata: { requiredExtensions: 'urn:x' } },
    });
    expect(errorFromV1(new A2AError('VersionNotSupported')).code).toBe(-32600);
  });

  it('puts a free-form object in data (v0.3), not the v1.0 array of google.rpc details', () => {
    expect(errorFromV1(invalidParams('message.role', "must be 'user' or 'agent'"))).toEqual({
      code: -32602,
      message: "Invalid parameter 'message.role': must be 'user' or 'agent'",
      data: { reason: 'INVALID_PARAMS', fieldViolations: [{ field: 'message.role', description: "must be 'user' or 'agent'" }] },
    });
  });

  it('hides the text of unexpected errors', () => {
    expect(errorFromV1(new Error('db password is hunter2'))).toEqual({ code: -32603, message: 'Internal error', data: { reason: 'INTERNAL_ERROR' } });
  });
});
