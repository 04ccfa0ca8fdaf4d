/**
 * The refusal of a call over one of the caller's quotas (issue 13, docs/usage.md "Quotas and rate
 * limits"): A2A's QuotaExceeded kind, carrying when to retry and the policy that refused, so each
 * face can answer in its own shape (HTTP 429 + Retry-After + RateLimit fields, gRPC RetryInfo, an
 * MCP tool result that says when to retry).
 */
import { A2AError } from './errors.js';
import type { JsonObject } from './types.js';

export type QuotaKind = 'requests' | 'concurrentTasks' | 'monthlyTokens' | 'monthlyCost';

/** The quota that refused, as a client may see it. */
export interface QuotaPolicy {
  id: string;
  kind: QuotaKind;
  limit: number;
  /** `requests` only: the window's length in seconds */
  windowSeconds?: number;
}

const WHAT: Record<QuotaKind, (p: QuotaPolicy) => string> = {
  requests: (p) => `${p.limit} requests per ${p.windowSeconds} s`,
  concurrentTasks: (p) => `${p.limit} tasks at once`,
  monthlyTokens: (p) => `${p.limit} tokens per month`,
  monthlyCost: (p) => `${p.limit} cost units per month`,
};

export class QuotaExceededError extends A2AError {
  constructor(
    readonly policy: QuotaPolicy,
    /** whole seconds; after waiting this long the quota that refused admits again (for concurrentTasks: may) */
    readonly retryAfterSeconds: number,
  ) {
    super('QuotaExceeded', `Quota '${policy.id}' exceeded (${WHAT[policy.kind](policy)}); retry after ${retryAfterSeconds} s`, {
      metadata: {
        quotaId: policy.id,
        quotaKind: policy.kind,
        limit: String(policy.limit),
        ...(policy.windowSeconds !== undefined ? { windowSeconds: String(policy.windowSeconds) } : {}),
        retryAfterSeconds: String(retryAfterSeconds),
      },
    });
    this.name = 'QuotaExceededError';
  }

  /** ErrorInfo, then google.rpc.RetryInfo (what gRPC clients read to back off). */
  override details(): JsonObject[] {
    return [...super.details(), { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${this.retryAfterSeconds}s` }];
  }
}
