/**
 * `GET /api/v1/audit`: the audit log (src/store/audit-store.ts) for administrators, filtered by
 * action, actor, target, outcome and time, paged by seq. `?format=ndjson` exports every matching
 * record, one JSON object a line, read from the store a page at a time. Records are returned as
 * stored (time in epoch ms, prevHash and hash), so an export can be checked against the chain.
 */
import { Readable } from 'node:stream';
import type { FastifyPluginCallback } from 'fastify';
import { z } from 'zod';
import { invalidParams } from '../../protocol/a2a/errors.js';
import type { AuditQuery, AuditRecord, AuditStore } from '../../store/audit-store.js';
import { requireAdmin, sendError, type AdminGuardDeps } from './admin-guard.js';
import { queryInstant } from './query-instant.js';

const DEFAULT_LIMIT = 100;
const MAX_PAGE = 1000;

const auditQuery = z
  .object({
    action: z.string().min(1).max(100).optional(),
    actor: z.string().min(1).max(300).optional(),
    target: z.string().min(1).max(300).optional(),
    outcome: z.enum(['success', 'failure', 'denied']).optional(),
    since: queryInstant.optional(),
    until: queryInstant.optional(),
    after: z
      .string()
      .regex(/^\d{1,15}$/, 'must be a seq')
      .transform(Number)
      .optional(),
    limit: z
      .string()
      .regex(/^\d{1,7}$/, 'must be a count')
      .transform(Number)
      .optional(),
    format: z.enum(['json', 'ndjson']).default('json'),
  })
  .strict();

export function auditRoutes(d: AdminGuardDeps & { store: AuditStore; flush?: () => Promise<void> }): FastifyPluginCallback {
  return (app, _opts, done) => {
    app.get('/api/v1/audit', async (req, reply) => {
      if (!(await requireAdmin(d, req, reply))) return reply;
      const parsed = auditQuery.safeParse(req.query ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        return sendError(reply, invalidParams(issue.path.join('.') || 'query', issue.message));
      }
      const { format, after, limit, ...filters } = parsed.data;
      const base: Omit<AuditQuery, 'limit'> = {
        ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined)),
        ...(after !== undefined ? { afterSeq: after } : {}),
      };
      // What this replica recorded just before (the admin's own last action) is in the answer.
      await d.flush?.().catch(() => {});
      reply.header('Cache-Control', 'no-store');
      if (format === 'ndjson') {
        reply.type('application/x-ndjson');
        return reply.send(Readable.from(exportLines(d.store, base, limit)));
      }
      const pageSize = Math.min(limit ?? DEFAULT_LIMIT, MAX_PAGE);
      // One more than asked tells whether there is a next page.
      const rows = await d.store.list({ ...base, limit: pageSize + 1 });
      const records = rows.slice(0, pageSize);
      const last = records[records.length - 1];
      return reply.send({ records, ...(rows.length > pageSize && last ? { nextAfter: last.seq } : {}) });
    });
    // Whether the hash chain is intact (the same walk as `agentport audit verify`), for the console's audit page.
    app.get('/api/v1/audit/verify', async (req, reply) => {
      if (!(await requireAdmin(d, req, reply))) return reply;
      await d.flush?.().catch(() => {});
      reply.header('Cache-Control', 'no-store');
      return reply.send(await d.store.verify());
    });
    done();
  };
}

/** Every matching record (at most `limit`), a page at a time, as NDJSON lines. */
async function* exportLines(store: AuditStore, q: Omit<AuditQuery, 'limit'>, limit: number | undefined): AsyncGenerator<string> {
  let left = limit ?? Number.POSITIVE_INFINITY;
  let afterSeq = q.afterSeq;
  while (left > 0) {
    const want = Math.min(MAX_PAGE, left);
    const page: AuditRecord[] = await store.list({ ...q, ...(afterSeq !== undefined ? { afterSeq } : {}), limit: want });
    if (page.length === 0) return;
    yield page.map((r) => `${JSON.stringify(r)}\n`).join('');
    left -= page.length;
    afterSeq = page[page.length - 1]!.seq;
    if (page.length < want) return;
  }
}
