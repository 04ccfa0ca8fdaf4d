/**
 * The HTTP fields of a quota refusal: `Retry-After` (RFC 9110 §10.2.3) and the IETF RateLimit
 * fields (draft-ietf-httpapi-ratelimit-headers-10: `RateLimit-Policy` names the policy with its
 * quota `q` and window `w`, `RateLimit` its remaining `r` and seconds to reset `t`; both are
 * Structured Field lists of a String item with parameters). Token and cost budgets have no quota
 * unit in the draft's registry, so they get `Retry-After` only (docs/compliance.md).
 */
import { toA2AError } from '../protocol/a2a/errors.js';
import { QuotaExceededError } from '../protocol/a2a/quota-exceeded.js';

/** A policy id is `[a-z0-9_-]` (config/usage-schema.ts), so it needs no escaping in an sf-string. */
export function rateLimitHeaders(err: unknown): Record<string, string> | undefined {
  const e = toA2AError(err);
  if (!(e instanceof QuotaExceededError)) return undefined;
  const out: Record<string, string> = { 'Retry-After': String(e.retryAfterSeconds) };
  const p = e.policy;
  if (p.kind === 'requests') {
    out['RateLimit-Policy'] = `"${p.id}";q=${p.limit};w=${p.windowSeconds}`;
    out.RateLimit = `"${p.id}";r=0;t=${e.retryAfterSeconds}`;
  } else if (p.kind === 'concurrentTasks') {
    out['RateLimit-Policy'] = `"${p.id}";q=${p.limit};qu="concurrent-requests"`;
    out.RateLimit = `"${p.id}";r=0`;
  }
  return out;
}

/** `headers` plus the quota fields when `err` is a quota refusal. */
export function withRateLimit(headers: Record<string, string>, err: unknown): Record<string, string> {
  const h = rateLimitHeaders(err);
  return h ? { ...headers, ...h } : headers;
}
