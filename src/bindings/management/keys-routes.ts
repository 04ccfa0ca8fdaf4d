/**
 * `POST /api/v1/keys`, `GET /api/v1/keys`, `DELETE /api/v1/keys/{id}`: the stored API keys of
 * src/auth/api-keys.ts over HTTP, the same records `agentport keys` manages. An administrator
 * manages every key; anyone else signed in manages their own (src/core/authz/own-api-keys.ts):
 * creates keys for themselves within their own scopes, lists and revokes only theirs; another
 * subject's key is answered exactly as an unknown one. A key is returned once, at creation; lists
 * show ids, never secrets. DELETE revokes (keys are revoked, never deleted, so the audit trail stays).
 */
import type { FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { IncomingMessage } from 'node:http';
import { createApiKey, standingScopes } from '../../auth/api-keys.js';
import { CONSOLE_CLIENT_ID } from '../../auth/sessions/console-sessions.js';
import { auditActorOf, auditOriginOf, type AuditOrigin } from '../../auth/audit-origin.js';
import { NO_AUDIT, type AuditSink } from '../../core/audit/audit-event.js';
import { keyToCreate, KeyRequestDenied, keyVisibility, type KeyVisibility } from '../../core/authz/own-api-keys.js';
import type { Principal } from '../../core/authz/principal.js';
import { unknownScopeMessage } from '../../core/authz/scope-names.js';
import { SCOPES } from '../../core/authz/scopes.js';
import { invalidParams, A2AError } from '../../protocol/a2a/errors.js';
import type { StoredApiKey } from '../../store/store.js';
import { requireCaller, sendDenial, sendError, type AdminGuardDeps } from './admin-guard.js';

export interface ApiKeyAdmin {
  putApiKey(key: StoredApiKey): Promise<void>;
  getApiKey(keyId: string): Promise<StoredApiKey | undefined>;
  listApiKeys(): Promise<StoredApiKey[]>;
  revokeApiKey(keyId: string, at: number): Promise<boolean>;
  /** whether a key's subject is a local user, whom a self-made key is then bound to */
  readonly oauth: { getUser(username: string): Promise<object | undefined> };
}

const scope = z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,100}$/, 'must be a scope token (printable ASCII, no spaces or quotes)');
const createKeyBody = z
  .object({
    /** default: the caller's own subject */
    subject: z.string().trim().min(1).max(200).optional(),
    scopes: z.array(scope).max(50).default([]),
    usecase: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'must be lowercase letters, digits, - and _')
      .optional(),
    /** RFC 3339 */
    expiresAt: z.string().datetime({ offset: true }).optional(),
  })
  .strict();

const KEY_ID = /^[0-9a-f]{16}$/;

/** Whether what a self-made key stands on (its owner, its grant; read with the key) has ended: it is then revoked. */
function standingEnded(k: StoredApiKey, now: number): boolean {
  try {
    standingScopes(k, now);
    return false;
  } catch {
    return true;
  }
}

function keyView(k: StoredApiKey, now: number) {
  const status = k.revokedAt !== undefined || (k.standing !== undefined && standingEnded(k, now)) ? 'revoked' : k.expiresAt !== undefined && k.expiresAt <= now ? 'expired' : 'active';
  return {
    id: k.keyId,
    subject: k.subject,
    scopes: k.scopes,
    ...(k.usecase === undefined ? {} : { usecase: k.usecase }),
    createdAt: new Date(k.createdAt).toISOString(),
    ...(k.expiresAt === undefined ? {} : { expiresAt: new Date(k.expiresAt).toISOString() }),
    ...(k.revokedAt === undefined ? {} : { revokedAt: new Date(k.revokedAt).toISOString() }),
    status,
  };
}

/**
 * What a key made for the caller's own subject stands on (issue 25, K4; migration 0016): a local
 * user's key ends with the user and holds at most the user's scopes at each use; a key of an
 * account without a user row (upstream or token sign-in), or one minted through another app's
 * grant (an administrator's token), ends with the grant. A key an administrator makes for another
 * subject, or a credential with neither (a config or first-start key), stands on itself.
 */
async function standingOf(principal: Principal, subject: string, store: ApiKeyAdmin): Promise<{ owner?: string; grantId?: string }> {
  if (subject !== principal.subject) return {};
  const owner = (await store.oauth.getUser(subject)) ? subject : undefined;
  const throughGrant = principal.grantId !== undefined && (owner === undefined || principal.clientId !== CONSOLE_CLIENT_ID);
  return { ...(owner === undefined ? {} : { owner }), ...(throughGrant ? { grantId: principal.grantId } : {}) };
}

/** A Fastify plugin: `app.register(keyRoutes(deps))`. */
export function keyRoutes(d: AdminGuardDeps & { store: ApiKeyAdmin; audit?: AuditSink; auditOrigin?: (req: IncomingMessage, requestId?: string) => AuditOrigin }): FastifyPluginCallback {
  const audit = d.audit ?? NO_AUDIT;
  const origin = d.auditOrigin ?? auditOriginOf();
  /** The caller and what it may see, or undefined once the refusal was sent. */
  const caller = async (req: FastifyRequest, reply: FastifyReply): Promise<{ principal: Principal; visibility: KeyVisibility } | undefined> => {
    // The challenge names admin: the scope that manages every key (one's own needs none).
    const principal = await requireCaller(d, req, reply, SCOPES.admin);
    if (!principal) return undefined;
    try {
      return { principal, visibility: keyVisibility(d.policy, principal) };
    } catch (e) {
      return void sendDenial(d, reply, e);
    }
  };
  const denied = (principal: Principal, req: FastifyRequest, operation: string, requiredScopes: readonly string[], target?: string) =>
    audit.record({
      action: 'authz.denied',
      outcome: 'denied',
      ...auditActorOf(principal),
      ...origin(req.raw, req.id),
      ...(target ? { target } : {}),
      details: { operation, requiredScopes: [...requiredScopes], path: req.url.split('?')[0] },
    });

  return (app, _opts, done) => {
    app.post('/api/v1/keys', async (req, reply) => {
      const who = await caller(req, reply);
      if (!who) return reply;
      let json: unknown;
      try {
        json = typeof req.body === 'string' && req.body !== '' ? JSON.parse(req.body) : req.body;
      } catch {
        return sendError(reply, new A2AError('ParseError'));
      }
      const parsed = createKeyBody.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        return sendError(reply, invalidParams(issue.path.join('.') || 'body', issue.message));
      }
      const unknownScope = unknownScopeMessage(parsed.data.scopes, d.policy.configuredSkillScopes());
      if (unknownScope) return sendError(reply, invalidParams('scopes', unknownScope));
      let key: ReturnType<typeof keyToCreate>;
      try {
        key = keyToCreate(who.principal, who.visibility, {
          firstParty: who.principal.clientId === CONSOLE_CLIENT_ID,
          scopes: parsed.data.scopes,
          ...(parsed.data.subject === undefined ? {} : { subject: parsed.data.subject }),
          ...(parsed.data.usecase === undefined ? {} : { usecase: parsed.data.usecase }),
        });
      } catch (e) {
        if (e instanceof KeyRequestDenied) denied(who.principal, req, e.operation, e.requiredScopes);
        return sendDenial(d, reply, e);
      }
      const now = Date.now();
      const expiresAt = parsed.data.expiresAt === undefined ? undefined : Date.parse(parsed.data.expiresAt);
      if (expiresAt !== undefined && expiresAt <= now) return sendError(reply, invalidParams('expiresAt', 'must be in the future'));
      const standsOn = await standingOf(who.principal, key.subject, d.store);
      const created = createApiKey({ ...key, ...standsOn, ...(expiresAt === undefined ? {} : { expiresAt }), now });
      await d.store.putApiKey(created.record);
      audit.record({
        action: 'apikey.created',
        outcome: 'success',
        ...auditActorOf(who.principal),
        target: `apikey:${created.record.keyId}`,
        ...origin(req.raw, req.id),
        details: {
          subject: created.record.subject,
          scopes: created.record.scopes,
          ...(created.record.usecase !== undefined ? { usecase: created.record.usecase } : {}),
          ...(standsOn.owner !== undefined ? { owner: standsOn.owner } : {}),
          ...(standsOn.grantId !== undefined ? { grantId: standsOn.grantId } : {}),
        },
      });
      reply.header('Cache-Control', 'no-store');
      return reply.code(201).send({ ...keyView(created.record, now), key: created.key });
    });

    app.get('/api/v1/keys', async (req, reply) => {
      const who = await caller(req, reply);
      if (!who) return reply;
      const now = Date.now();
      const own = who.visibility.subject;
      const keys = (await d.store.listApiKeys()).filter((k) => own === undefined || k.subject === own);
      reply.header('Cache-Control', 'no-store');
      return reply.send({ keys: keys.map((k) => keyView(k, now)) });
    });

    app.delete<{ Params: { id: string } }>('/api/v1/keys/:id', async (req, reply) => {
      const who = await caller(req, reply);
      if (!who) return reply;
      const id = req.params.id;
      const unknown = () => sendError(reply, new A2AError('MethodNotFound', `No API key '${id}'`));
      if (!KEY_ID.test(id)) return unknown();
      const own = who.visibility.subject;
      if (own !== undefined) {
        // Another subject's key is answered as an unknown one: its existence is not the caller's to learn.
        const stored = await d.store.getApiKey(id);
        if (stored && stored.subject !== own) denied(who.principal, req, 'administer', [SCOPES.admin], `apikey:${id}`);
        if (!stored || stored.subject !== own) return unknown();
      }
      if (!(await d.store.revokeApiKey(id, Date.now()))) return unknown();
      audit.record({ action: 'apikey.revoked', outcome: 'success', ...auditActorOf(who.principal), target: `apikey:${id}`, ...origin(req.raw, req.id) });
      return reply.code(204).send();
    });
    done();
  };
}
