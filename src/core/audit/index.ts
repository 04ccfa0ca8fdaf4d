/** The audit log (issue 13): what producers call (AuditSink) and what stores and forwards it. */
export { NO_AUDIT, type AuditEvent, type AuditOutcome, type AuditSink } from './audit-event.js';
export { AuditLog, type AuditLogOptions } from './audit-log.js';
export { AuditWebhookForwarder, type AuditWebhookOptions } from './audit-webhook.js';
