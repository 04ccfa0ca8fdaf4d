/**
 * Issue 26 item 3: the admission policy both listeners share (edge/caller-admission.ts): the read
 * limit of an anonymous caller who will be refused, the anonymous share of the body budget, and
 * the start gate, with the gRPC listener's metadata check asking the same gate the same way. The
 * two listeners refusing one request each in its own shape: test/edge/shared-admission.test.ts.
 */
import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { AccessDenied } from '../../src/core/authz/access-denied.js';
import { AuthorizationPolicy } from '../../src/core/authz/policy.js';
import { ANONYMOUS, type Principal } from '../../src/core/authz/principal.js';
import { anonymousReadLimit, passStartGate, readsAsAnonymous, REFUSED_BODY_BYTES } from '../../src/edge/caller-admission.js';
import { StartGate } from '../../src/edge/start-gate.js';
import { grpcAuthentication } from '../../src/server/grpc-authentication.js';

const alice: Principal = { subject: 'alice', authenticated: true, scopes: ['a2a:publish'] };
const required = new AuthorizationPolicy({ mode: 'required', anonymousExtendedCard: false, agents: {} });
const tck = new AuthorizationPolicy({ mode: 'required', anonymousExtendedCard: true, agents: {} });
const open = new AuthorizationPolicy({ mode: 'none', anonymousExtendedCard: false, agents: {} });

describe('the read limit of an anonymous caller (both listeners)', () => {
  it('an anonymous caller the policy refuses whatever it sends reads at most 16 KiB, then is refused Unauthenticated', () => {
    const http = anonymousReadLimit(required, ANONYMOUS);
    expect(http?.bytes).toBe(16 * 1024);
    expect(http?.refusal.kind).toBe('Unauthenticated');
    const grpcSend = anonymousReadLimit(required, ANONYMOUS, 'send-message');
    expect(grpcSend?.bytes).toBe(REFUSED_BODY_BYTES);
    expect(grpcSend?.refusal).toBeInstanceOf(AccessDenied);
    expect((grpcSend!.refusal as AccessDenied).requiredScopes).toEqual(required.requiredScopes('send-message', { surface: 'a2a' }));
  });

  it('no limit for a caller with a credential, under a policy that enforces nothing, or for what anonymous callers may do', () => {
    expect(anonymousReadLimit(required, alice)).toBeUndefined();
    expect(anonymousReadLimit(required, alice, 'send-message')).toBeUndefined();
    expect(anonymousReadLimit(open, ANONYMOUS)).toBeUndefined();
    expect(anonymousReadLimit(open, ANONYMOUS, 'send-message')).toBeUndefined();
    // The TCK profile: anonymous callers may read the extended card, so a JSON-RPC body (whose
    // method is unknown before reading) is read in full; a gRPC call names its method.
    expect(anonymousReadLimit(tck, ANONYMOUS)).toBeUndefined();
    expect(anonymousReadLimit(tck, ANONYMOUS, 'read-extended-card')).toBeUndefined();
    expect(anonymousReadLimit(tck, ANONYMOUS, 'send-message')?.refusal.kind).toBe('Unauthenticated');
  });

  it('an anonymous caller reads in the anonymous share of the budget, where there is one', () => {
    const shared = { capacity: 100, anonymousCapacity: 10 };
    const unshared = { capacity: 100, anonymousCapacity: 100 };
    expect(readsAsAnonymous(shared, ANONYMOUS)).toBe(true);
    expect(readsAsAnonymous(shared, undefined)).toBe(true);
    expect(readsAsAnonymous(shared, alice)).toBe(false);
    expect(readsAsAnonymous(unshared, ANONYMOUS)).toBe(false);
  });
});

describe('the start gate (both listeners)', () => {
  it('after a failed start, a request is refused Unavailable, never with the start’s own error', async () => {
    const failed = Promise.reject(new Error('database password rejected for user admin'));
    failed.catch(() => {});
    const gate = new StartGate(failed);
    await expect(passStartGate(gate)).rejects.toMatchObject({ kind: 'Unavailable', message: 'The server failed to start' });
    // The gRPC listener's metadata check asks the same gate the same way.
    const auth = grpcAuthentication({
      auth: { authenticate: async () => ANONYMOUS } as never,
      policy: required,
      gate,
      resourceMetadataUrl: () => 'http://127.0.0.1/.well-known/oauth-protected-resource',
    });
    await expect(auth.beforeRead(new grpc.Metadata(), 'SendMessage')).rejects.toMatchObject({ kind: 'Unavailable', message: 'The server failed to start' });
  });

  it('once started, the gate lets requests through', async () => {
    await expect(passStartGate(new StartGate(Promise.resolve()))).resolves.toBeUndefined();
  });
});
