/**
 * `GET /api/v1/quotas`, `GET|PUT|DELETE /api/v1/quotas/{id}` (admin scope): the quotas in force,
 * from agentport.yaml (read-only, `source: "config"`) and set here (`source: "api"`, kept in the
 * database and enforced by every replica within the book's re-read interval; core/quotas/quota-book.ts).
 * A PUT body is one `quotas:` entry of the configuration (docs/usage.md), its id taken from the path.
 */
import type { FastifyPluginCallback } from 'fastify';
import { quotaSchema } from '../../config/usage-schema.js';
import { QuotaConfigConflict, type QuotaBook } from '../../core/quotas/quota-book.js';
import type { Quota } from '../../core/quotas/quota.js';
import { A2AError, invalidParams } from '../../protocol/a2a/errors.js';
import { requireAdmin, sendError, type AdminGuardDeps } from './admin-guard.js';

const QUOTA_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;

function quotaView(q: Quota) {
  return {
    id: q.id,
    source: q.source,
    per: q.per,
    match: q.match,
    ...(q.requests ? { requests: q.requests } : {}),
    ...(q.concurrentTasks !== undefined ? { concurrentTasks: q.concurrentTasks } : {}),
    ...(q.monthlyTokens !== undefined ? { monthlyTokens: q.monthlyTokens } : {}),
    ...(q.monthlyCost !== undefined ? { monthlyCost: q.monthlyCost } : {}),
  };
}

const noSuchQuota = (id: string) => new A2AError('MethodNotFound', `No quota '${id}'`);
const readOnly = (e: QuotaConfigConflict) => new A2AError('UnsupportedOperation', `${e.message}; edit agentport.yaml instead`);

/** A Fastify plugin: `app.register(quotaRoutes(deps))`. */
export function quotaRoutes(d: AdminGuardDeps & { book: QuotaBook }): FastifyPluginCallback {
  return (app, _opts, done) => {
    app.get('/api/v1/quotas', async (req, reply) => {
      if (!(await requireAdmin(d, req, reply))) return reply;
      await d.book.refresh();
      reply.header('Cache-Control', 'no-store');
      return reply.send({ quotas: (await d.book.list()).map(quotaView) });
    });

    app.get<{ Params: { id: string } }>('/api/v1/quotas/:id', async (req, reply) => {
      if (!(await requireAdmin(d, req, reply))) return reply;
      await d.book.refresh();
      const q = (await d.book.list()).find((x) => x.id === req.params.id);
      if (!q) return sendError(reply, noSuchQuota(req.params.id));
      reply.header('Cache-Control', 'no-store');
      return reply.send(quotaView(q));
    });

    app.put<{ Params: { id: string } }>('/api/v1/quotas/:id', async (req, reply) => {
      if (!(await requireAdmin(d, req, reply))) return reply;
      const id = req.params.id;
      if (!QUOTA_ID.test(id)) return sendError(reply, invalidParams('id', 'must be lowercase letters, digits, - and _'));
      let json: unknown;
      try {
        json = typeof req.body === 'string' && req.body !== '' ? JSON.parse(req.body) : req.body;
      } catch {
        return sendError(reply, new A2AError('ParseError'));
      }
      if (json === null || typeof json !== 'object' || Array.isArray(json)) return sendError(reply, invalidParams('body', 'must be a JSON object'));
      const body = json as Record<string, unknown>;
      if (body.id !== undefined && body.id !== id) return sendError(reply, invalidParams('id', 'must match the id in the path'));
      const parsed = quotaSchema.safeParse({ ...body, id });
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        return sendError(reply, invalidParams(issue.path.join('.') || 'body', issue.message));
      }
      const existed = (await d.book.list()).some((q) => q.id === id);
      try {
        const saved = await d.book.put(parsed.data);
        reply.header('Cache-Control', 'no-store');
        return reply.code(existed ? 200 : 201).send(quotaView(saved));
      } catch (e) {
        if (e instanceof QuotaConfigConflict) return sendError(reply, readOnly(e));
        throw e;
      }
    });

    app.delete<{ Params: { id: string } }>('/api/v1/quotas/:id', async (req, reply) => {
      if (!(await requireAdmin(d, req, reply))) return reply;
      const id = req.params.id;
      try {
        if (!QUOTA_ID.test(id) || !(await d.book.delete(id))) return sendError(reply, noSuchQuota(id));
      } catch (e) {
        if (e instanceof QuotaConfigConflict) return sendError(reply, readOnly(e));
        throw e;
      }
      return reply.code(204).send();
    });
    done();
  };
}
