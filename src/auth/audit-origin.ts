/**
 * Who and where, for audit records written by request handlers: the caller as actor (and the
 * client or API key it used), and the request's client address (behind trusted proxies, the same
 * rule as the login throttle), user agent and request id.
 */
import type { IncomingMessage } from 'node:http';
import type { AuditEvent } from '../core/audit/audit-event.js';
import type { Principal } from '../core/authz/principal.js';
import { contextOf } from '../edge/edge.js';
import { clientAddressOf } from './oauth/client-address.js';

export type AuditOrigin = Pick<AuditEvent, 'clientAddress' | 'userAgent' | 'requestId'>;
export type AuditActor = Pick<AuditEvent, 'actor' | 'actorClient'>;

/** The user agent is cut: it is for recognising a client, and a header can be long. */
const MAX_USER_AGENT = 256;

export function auditOriginOf(trustedProxies: readonly string[] = []): (req: IncomingMessage, requestId?: string) => AuditOrigin {
  const addressOf = clientAddressOf(trustedProxies);
  return (req, requestId) => {
    const address = addressOf(req);
    const ua = req.headers['user-agent'];
    const id = requestId ?? contextOf(req)?.requestId;
    return {
      ...(address !== undefined ? { clientAddress: address } : {}),
      ...(typeof ua === 'string' && ua !== '' ? { userAgent: ua.slice(0, MAX_USER_AGENT) } : {}),
      ...(id !== undefined ? { requestId: id } : {}),
    };
  };
}

/** The principal as an audit actor: its subject, and the API key (`apikey:<id>`) or OAuth client it used. */
export function auditActorOf(p: Principal): AuditActor {
  const client = p.keyId !== undefined ? `apikey:${p.keyId}` : p.clientId;
  return { actor: p.subject, ...(client !== undefined ? { actorClient: client } : {}) };
}
