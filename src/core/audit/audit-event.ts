/**
 * Security and administration events (issue 13, audit log). Producers (auth, OAuth, management,
 * quotas, config reload) hand an AuditEvent to the AuditSink; the audit log chains and stores it.
 */

export type AuditOutcome = 'success' | 'failure' | 'denied';

export interface AuditEvent {
  /** dotted verb: 'apikey.created', 'apikey.revoked', 'user.created', 'user.deleted', 'client.created', 'client.deleted',
   * 'consent.granted', 'consent.denied', 'token.issued', 'token.refreshed', 'token.revoked', 'token.refresh_reuse',
   * 'signin.succeeded', 'signin.failed', 'authz.denied', 'quota.refused', 'config.reloaded' */
  action: string;
  outcome: AuditOutcome;
  /** who did it: a subject, or 'anonymous' / 'system' */
  actor: string;
  /** the OAuth client or API key the actor used */
  actorClient?: string;
  /** what it was done to: 'apikey:<id>', 'user:<name>', 'client:<id>', 'agent:<id>', 'task:<id>' */
  target?: string;
  clientAddress?: string;
  userAgent?: string;
  requestId?: string;
  /** small, secret-free details (scopes, reason, quota id) */
  details?: Record<string, unknown>;
}

/** Where producers send events. Never throws and never blocks the caller's answer. */
export interface AuditSink {
  record(event: AuditEvent): void;
}

/** For composition without an audit log (tests, tools). */
export const NO_AUDIT: AuditSink = Object.freeze({ record() {} });
