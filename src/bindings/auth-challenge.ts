/**
 * The `WWW-Authenticate` value every HTTP binding sends with a 401 or 403 (RFC 6750 §3,
 * RFC 9728 §5.1): the scopes the refused operation needs and, when known, where the resource's
 * protected-resource metadata lives. 403s add `error="insufficient_scope"` (RFC 6750 §3.1).
 * A missing credential gets no `error` (RFC 6750 §3.1: "SHOULD NOT include an error code").
 */
import { bearerChallenge } from '../auth/challenge.js';
import { AccessDenied } from '../core/authz/access-denied.js';
import { toA2AError } from '../protocol/a2a/errors.js';

/** The challenge for an error, or undefined when the error is not 401/403. */
export function challengeFor(err: unknown): string | undefined {
  const e = toA2AError(err);
  if (e.kind !== 'Unauthenticated' && e.kind !== 'PermissionDenied') return undefined;
  if (!(e instanceof AccessDenied)) return e.kind === 'Unauthenticated' ? 'Bearer' : undefined;
  return bearerChallenge({
    ...(e.resourceMetadata ? { resourceMetadata: e.resourceMetadata } : {}),
    scope: e.requiredScopes.join(' '),
    ...(e.kind === 'PermissionDenied' ? { error: 'insufficient_scope' as const } : {}),
  });
}

/** `headers` plus the challenge when `err` calls for one. */
export function withChallenge(headers: Record<string, string>, err: unknown): Record<string, string> {
  const c = challengeFor(err);
  return c ? { ...headers, 'WWW-Authenticate': c } : headers;
}
