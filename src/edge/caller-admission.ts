/**
 * What a listener decides about a request before its body (HTTP) or message (gRPC) is read, in
 * code shared by the HTTP edge with its faces and by the gRPC listener's admission, so the two
 * listeners cannot drift apart (issue 26 item 3). Each listener encodes a refusal in its own
 * protocol's shape; the decision is made here:
 *
 *   - the start gate: a request arriving before the start waits for it; after a failed start it is
 *     refused `Unavailable` (never the start's own error, which may name internals);
 *   - an anonymous caller who will be refused whatever it sends: at most `REFUSED_BODY_BYTES` of
 *     its request are read (enough for any request, so the refusal can depend on what it names,
 *     as an agent the caller may not see must look unknown), a larger one is refused unread;
 *   - an anonymous caller's bytes count against the anonymous share of the body budget.
 *
 * The byte limit, the server-wide budget and the read deadline themselves are edge/body.ts's
 * (`BodyBudget`, `bodyRefusal`), used by both listeners.
 */
import { AccessDenied } from '../core/authz/access-denied.js';
import type { Action, AuthorizationPolicy } from '../core/authz/policy.js';
import { ANONYMOUS, type Principal } from '../core/authz/principal.js';
import { A2AError } from '../protocol/a2a/errors.js';
import type { StartGate } from './start-gate.js';

/** How much of the request of a caller who will be refused is read: a request, not an upload. */
export const REFUSED_BODY_BYTES = 16 * 1024;

/** A caller who will be refused anyway: at most `bytes` of its request are read, then `refusal`. */
export interface ReadLimit {
  bytes: number;
  refusal: A2AError;
}

/** The refusal of a request that arrives after the server failed to start. */
export function startFailed(): A2AError {
  return new A2AError('Unavailable', 'The server failed to start');
}

/** Resolves once the server has started; rejects with `startFailed()` when its start failed. */
export async function passStartGate(gate: StartGate): Promise<void> {
  if (gate.open) return;
  if (!(await gate.passed())) throw startFailed();
}

/**
 * The read limit of an anonymous caller the policy will refuse whatever it sends, else undefined.
 * `action`: what the request does, when the listener knows it before reading (a gRPC method). On
 * HTTP JSON-RPC the method is in the body: there the least an anonymous caller may be allowed
 * (reading the extended card, the TCK profile) decides.
 */
export function anonymousReadLimit(policy: AuthorizationPolicy | undefined, principal: Principal, action?: Action): ReadLimit | undefined {
  if (principal.authenticated || !policy?.enforcing) return undefined;
  if (action !== undefined) {
    if (policy.allows(ANONYMOUS, action)) return undefined;
    return { bytes: REFUSED_BODY_BYTES, refusal: new AccessDenied('Unauthenticated', policy.requiredScopes(action, { surface: 'a2a' })) };
  }
  if (policy.allows(ANONYMOUS, 'read-extended-card')) return undefined;
  return { bytes: REFUSED_BODY_BYTES, refusal: new A2AError('Unauthenticated', 'Authentication required (scope: a2a:discover or a2a:publish)') };
}

/**
 * Whether a caller's bytes count against the anonymous share of the body budget: a caller with no
 * credential, where the budget has such a share (auth mode none has none: everyone is anonymous).
 */
export function readsAsAnonymous(budget: { capacity: number; anonymousCapacity: number }, principal: Principal | undefined): boolean {
  return budget.anonymousCapacity < budget.capacity && principal?.authenticated !== true;
}
