/**
 * Audit records of the token endpoint and revocation, from oidc-provider's own events (they fire
 * after the decision, inside the request): `grant.success` is a token issued (code, client
 * credentials, token exchange) or refreshed; `grant.revoked` during a refresh is oidc-provider's
 * reaction to a refresh token presented twice (it revokes the whole grant: the token was likely
 * stolen), and during a revocation request it is the client revoking its token. A client
 * registered dynamically (`registration_create.success`) is a `client.created`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { AuditEvent, AuditSink } from '../../core/audit/audit-event.js';
import { TOKEN_EXCHANGE_GRANT } from './token-exchange-grant.js';

/** The part of oidc-provider's Koa context these events carry that is read here. */
interface EventContext {
  req: IncomingMessage;
  res: ServerResponse;
  oidc?: {
    route?: string;
    params?: { grant_type?: unknown; scope?: unknown };
    client?: { clientId?: string };
    account?: { accountId?: string };
    entities?: { Grant?: { jti?: string }; RefreshToken?: { grantId?: string; accountId?: string }; AccessToken?: { grantId?: string; accountId?: string } };
  };
}

export function auditTokenEvents(provider: Provider, audit: AuditSink, clientAddress: (req: IncomingMessage) => string | undefined): void {
  const origin = (ctx: EventContext): Pick<AuditEvent, 'clientAddress' | 'userAgent' | 'requestId' | 'actorClient'> => {
    const address = clientAddress(ctx.req);
    const ua = ctx.req.headers['user-agent'];
    const requestId = ctx.res.getHeader('x-request-id');
    const client = ctx.oidc?.client?.clientId;
    return {
      ...(client !== undefined ? { actorClient: client } : {}),
      ...(address !== undefined ? { clientAddress: address } : {}),
      ...(typeof ua === 'string' && ua !== '' ? { userAgent: ua.slice(0, 256) } : {}),
      ...(typeof requestId === 'string' ? { requestId } : {}),
    };
  };
  const actorOf = (ctx: EventContext): string => {
    const e = ctx.oidc?.entities;
    return ctx.oidc?.account?.accountId ?? e?.RefreshToken?.accountId ?? e?.AccessToken?.accountId ?? (ctx.oidc?.client?.clientId ? `client:${ctx.oidc.client.clientId}` : 'anonymous');
  };

  provider.on('grant.success', (...args: unknown[]) => {
    try {
      const ctx = args[0] as EventContext;
      const grantType = String(ctx.oidc?.params?.grant_type ?? '');
      // A token exchange has no Grant entity: its token stands on the subject token's grant.
      const grantId = ctx.oidc?.entities?.Grant?.jti ?? ctx.oidc?.entities?.AccessToken?.grantId;
      audit.record({
        action: grantType === 'refresh_token' ? 'token.refreshed' : 'token.issued',
        outcome: 'success',
        actor: actorOf(ctx),
        ...(grantId !== undefined ? { target: `grant:${grantId}` } : {}),
        ...origin(ctx),
        details: { grantType },
      });
    } catch {
      // An audit record never fails a token request.
    }
  });

  // Dynamic client registration (RFC 7591) is open to anyone: the registrant is anonymous.
  provider.on('registration_create.success', (...args: unknown[]) => {
    try {
      const ctx = args[0] as EventContext;
      const client = args[1] as { clientId?: string; clientName?: string } | undefined;
      audit.record({
        action: 'client.created',
        outcome: 'success',
        actor: 'anonymous',
        target: `client:${client?.clientId ?? ''}`,
        ...origin(ctx),
        details: { dynamicRegistration: true, ...(client?.clientName ? { name: client.clientName } : {}) },
      });
    } catch {
      // as above
    }
  });

  // A refused token exchange (RFC 8693, ADR 0043) is someone trying to act for a user: recorded
  // with the exchanging client and the OAuth error, never the tokens. Other grants' errors are not
  // (a wrong code or an expired refresh token is routine, and the login page has its own records).
  provider.on('grant.error', (...args: unknown[]) => {
    try {
      const ctx = args[0] as EventContext;
      const grantType = String(ctx.oidc?.params?.grant_type ?? '');
      if (grantType !== TOKEN_EXCHANGE_GRANT) return;
      const err = args[1] as { error?: unknown } | undefined;
      audit.record({
        action: 'token.exchange_refused',
        outcome: 'denied',
        actor: ctx.oidc?.client?.clientId ? `client:${ctx.oidc.client.clientId}` : 'anonymous',
        ...origin(ctx),
        details: { grantType, error: typeof err?.error === 'string' ? err.error : 'server_error' },
      });
    } catch {
      // as above
    }
  });

  provider.on('grant.revoked', (...args: unknown[]) => {
    try {
      const ctx = args[0] as EventContext;
      const grantId = String(args[1] ?? '');
      const reuse = ctx.oidc?.route === 'token';
      audit.record({
        action: reuse ? 'token.refresh_reuse' : 'token.revoked',
        outcome: reuse ? 'denied' : 'success',
        actor: actorOf(ctx),
        target: `grant:${grantId}`,
        ...origin(ctx),
        ...(reuse ? { details: { reason: 'a consumed refresh token was presented again; the grant was revoked' } } : { details: { route: ctx.oidc?.route ?? '' } }),
      });
    } catch {
      // as above
    }
  });
}
