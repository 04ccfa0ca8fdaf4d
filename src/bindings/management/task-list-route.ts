/**
 * `GET /api/v1/tasks`: tasks across agents and owners, newest status first, for the console's
 * Tasks page. An administrator (scope `admin`) sees every owner's tasks and may filter by owner;
 * any other caller holding `a2a:discover` sees only its own, as if every query carried
 * `owner=<its subject>` (naming another owner is a 403, never an empty page). Filters: agent,
 * state, owner, since/until (status time); paged by an opaque `pageToken` (the ListTasks cursor).
 * Each task carries `preview`, its first user message in one short line.
 */
import type { FastifyPluginCallback } from 'fastify';
import { z } from 'zod';
import { AccessDenied } from '../../core/authz/access-denied.js';
import { SCOPES } from '../../core/authz/scopes.js';
import { decodeCursor, encodeCursor } from '../../core/tasks/page-token.js';
import { invalidParams } from '../../protocol/a2a/errors.js';
import { firstMessagePreview } from '../../protocol/a2a/message-preview.js';
import { TASK_STATES } from '../../protocol/a2a/types.js';
import type { ListTasksPage, TaskSearchQuery } from '../../store/store.js';
import { requireCaller, sendDenial, sendError, type AdminGuardDeps } from './admin-guard.js';
import { queryInstant } from './query-instant.js';

const DEFAULT_PAGE = 50;
const MAX_PAGE = 500;

const listQuery = z
  .object({
    agent: z.string().min(1).max(200).optional(),
    state: z.enum(TASK_STATES).optional(),
    owner: z.string().min(1).max(300).optional(),
    since: queryInstant.optional(),
    until: queryInstant.optional(),
    pageToken: z.string().min(1).max(1000).optional(),
    pageSize: z
      .string()
      .regex(/^\d{1,4}$/, 'must be a count')
      .transform(Number)
      .optional(),
  })
  .strict();

export interface TaskSearch {
  searchTasks(query: TaskSearchQuery): Promise<ListTasksPage>;
}

/** A Fastify plugin: `app.register(taskListRoute(deps))`. */
export function taskListRoute(d: AdminGuardDeps & { store: TaskSearch }): FastifyPluginCallback {
  return (app, _opts, done) => {
    app.get('/api/v1/tasks', async (req, reply) => {
      // The challenge names a2a:discover, the least scope that answers (admin sees more).
      const principal = await requireCaller(d, req, reply, SCOPES.discover);
      if (!principal) return reply;
      const parsed = listQuery.safeParse(req.query ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        return sendError(reply, invalidParams(issue.path.join('.') || 'query', issue.message));
      }
      const q = parsed.data;
      let owner = q.owner;
      try {
        if (!d.policy.allows(principal, 'administer')) {
          d.policy.authorize(principal, 'read-tasks');
          if (owner !== undefined && owner !== principal.subject) {
            throw new AccessDenied('PermissionDenied', [SCOPES.admin], `Only an administrator lists the tasks of other owners; this credential lists its own (owner=${principal.subject})`);
          }
          owner = principal.subject;
        }
      } catch (e) {
        return sendDenial(d, reply, e);
      }
      let after: TaskSearchQuery['after'];
      try {
        after = q.pageToken === undefined ? undefined : decodeCursor(q.pageToken);
      } catch (e) {
        return sendError(reply, e);
      }
      const page = await d.store.searchTasks({
        pageSize: Math.min(q.pageSize ?? DEFAULT_PAGE, MAX_PAGE),
        ...(q.agent !== undefined ? { agentId: q.agent } : {}),
        ...(owner !== undefined ? { owner } : {}),
        ...(q.state !== undefined ? { status: q.state } : {}),
        ...(q.since !== undefined ? { statusTimeAfter: q.since } : {}),
        ...(q.until !== undefined ? { statusTimeBefore: q.until } : {}),
        ...(after ? { after } : {}),
      });
      reply.header('Cache-Control', 'no-store');
      return {
        tasks: page.tasks.map((t) => {
          const preview = firstMessagePreview(t.task);
          return {
            agentId: t.agentId,
            owner: t.owner,
            createdAt: new Date(t.createdAt).toISOString(),
            id: t.task.id,
            contextId: t.task.contextId,
            status: t.task.status,
            ...(preview !== undefined ? { preview } : {}),
          };
        }),
        totalSize: page.totalSize,
        ...(page.next ? { nextPageToken: encodeCursor(page.next) } : {}),
      };
    });
    done();
  };
}
