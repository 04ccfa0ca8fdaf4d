/**
 * `POST /api/v1/keys`, `GET /api/v1/keys`, `DELETE /api/v1/keys/{id}`: the stored API keys of
 * src/auth/api-keys.ts over HTTP (admin scope), the same records `agentport keys` manages.
 * A key is returned once, at creation; lists show ids, never secrets. DELETE revokes (keys are
 * revoked, never deleted, so the audit trail stays).
 */
import type { FastifyPluginCallback } from 'fastify';
import { z } from 'zod';
import type { IncomingMessage } from 'node:http';
import { createApiKey } from '../../auth/api-keys.js';
import { auditActorOf, auditOriginOf, type AuditOrigin } from '../../auth/audit-origin.js';
import { NO_AUDIT, type AuditSink } from '../../core/audit/audit-event.js';
import { invalidParams, A2AError } from '../../protocol/a2a/errors.js';
import type { StoredApiKey } from '../../store/store.js';
import { requireAdmin, sendError, type AdminGuardDeps } from './admin-guard.js';

export interface ApiKeyAdmin {
  putApiKey(key: StoredApiKey): Promise<void>;
  getApiKey(keyId: string): Promise<StoredApiKey | undefined>;
  listApiKeys(): Promise<StoredApiKey[]>;
  revokeApiKey(keyId: string, at: number): Promise<boolean>;
}

const scope = z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,100}$/, 'must be a scope token (printable ASCII, no spaces or quotes)');
const createKeyBody = z
  .object({
    subject: z.string().trim().min(1).max(200),
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

function keyView(k: StoredApiKey, now: number) {
  const status = k.revokedAt !== undefined ? 'revoked' : k.expiresAt !== undefined && k.expiresAt <= now ? 'expired' : 'active';
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

/** A Fastify plugin: `app.register(keyRoutes(deps))`. */
export function keyRoutes(d: AdminGuardDeps & { store: ApiKeyAdmin; audit?: AuditSink; auditOrigin?: (req: IncomingMessage, requestId?: string) => AuditOrigin }): FastifyPluginCallback {
  const audit = d.audit ?? NO_AUDIT;
  const origin = d.auditOrigin ?? auditOriginOf();
  return (app, _opts, done) => {
    app.post('/api/v1/keys', async (req, reply) => {
      const admin = await requireAdmin(d, req, reply);
      if (!admin) return reply;
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
      const now = Date.now();
      const expiresAt = parsed.data.expiresAt === undefined ? undefined : Date.parse(parsed.data.expiresAt);
      if (expiresAt !== undefined && expiresAt <= now) return sendError(reply, invalidParams('expiresAt', 'must be in the future'));
      const created = createApiKey({
        subject: parsed.data.subject,
        scopes: parsed.data.scopes,
        ...(parsed.data.usecase === undefined ? {} : { usecase: parsed.data.usecase }),
        ...(expiresAt === undefined ? {} : { expiresAt }),
        now,
      });
      await d.store.putApiKey(created.record);
      audit.record({
        action: 'apikey.created',
        outcome: 'success',
        ...auditActorOf(admin),
        target: `apikey:${created.record.keyId}`,
        ...origin(req.raw, req.id),
        details: { subject: created.record.subject, scopes: created.record.scopes, ...(created.record.usecase !== undefined ? { usecase: created.record.usecase } : {}) },
      });
      reply.header('Cache-Control', 'no-store');
      return reply.code(201).send({ ...keyView(created.record, now), key: created.key });
    });

    app.get('/api/v1/keys', async (req, reply) => {
      if (!(await requireAdmin(d, req, reply))) return reply;
      const now = Date.now();
      reply.header('Cache-Control', 'no-store');
      return reply.send({ keys: (await d.store.listApiKeys()).map((k) => keyView(k, now)) });
    });

    app.delete<{ Params: { id: string } }>('/api/v1/keys/:id', async (req, reply) => {
      const admin = await requireAdmin(d, req, reply);
      if (!admin) return reply;
      const id = req.params.id;
      if (!KEY_ID.test(id) || !(await d.store.revokeApiKey(id, Date.now()))) {
        return sendError(reply, new A2AError('MethodNotFound', `No API key '${id}'`));
      }
      audit.record({ action: 'apikey.revoked', outcome: 'success', ...auditActorOf(admin), target: `apikey:${id}`, ...origin(req.raw, req.id) });
      return reply.code(204).send();
    });
    done();
  };
}
