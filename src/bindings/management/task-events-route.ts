/**
 * `GET /api/v1/agents/{agentId}/tasks/{taskId}/events`: a task's stored event log in order (seq,
 * time, kind, the event) and its push deliveries (the configs, by id and URL without query, and the
 * deliveries still owed with their attempts and last error), for the console's task page. Its owner
 * reads it with `a2a:discover`, an administrator reads anyone's; to anyone else the task does not
 * exist (TaskNotFound, as A2A's GetTask answers), so the route reveals no other owner's task ids.
 */
import type { FastifyPluginCallback } from 'fastify';
import { SCOPES } from '../../core/authz/scopes.js';
import { A2AError } from '../../protocol/a2a/errors.js';
import type { PendingDelivery, StoredPushConfig, StoredTask, TaskEventRecord } from '../../store/store.js';
import { requireCaller, sendDenial, sendError, type AdminGuardDeps } from './admin-guard.js';

/** More than any task the console shows; a longer log says `truncated`. */
const MAX_EVENTS = 1000;

export interface TaskEventLog {
  getTask(agentId: string, taskId: string): Promise<StoredTask | undefined>;
  readEvents(taskId: string, afterSeq: number, limit?: number): Promise<TaskEventRecord[]>;
  listPushConfigs(taskId: string): Promise<StoredPushConfig[]>;
  listPendingDeliveries(taskId: string): Promise<PendingDelivery[]>;
}

/** `statusUpdate`, `artifactUpdate`, `task`, `message` (the A2A stream's own names) or `userMessage`. */
const kindOf = (event: TaskEventRecord['event']) => Object.keys(event)[0] ?? 'unknown';

/** A push URL's query may carry a secret of the receiver's: it is left out. */
function withoutQuery(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A Fastify plugin: `app.register(taskEventsRoute(deps))`. */
export function taskEventsRoute(d: AdminGuardDeps & { store: TaskEventLog }): FastifyPluginCallback {
  return (app, _opts, done) => {
    app.get<{ Params: { agentId: string; taskId: string } }>('/api/v1/agents/:agentId/tasks/:taskId/events', async (req, reply) => {
      const principal = await requireCaller(d, req, reply, SCOPES.discover);
      if (!principal) return reply;
      const { agentId, taskId } = req.params;
      const stored = await d.store.getTask(agentId, taskId);
      const admin = d.policy.allows(principal, 'administer');
      if (!admin) {
        try {
          d.policy.authorize(principal, 'read-tasks');
        } catch (e) {
          return sendDenial(d, reply, e);
        }
      }
      if (!stored || stored.agentId !== agentId || (!admin && stored.owner !== principal.subject)) {
        return sendError(reply, new A2AError('TaskNotFound', `Task ${taskId} was not found`));
      }
      const [records, configs, pending] = await Promise.all([d.store.readEvents(taskId, 0, MAX_EVENTS + 1), d.store.listPushConfigs(taskId), d.store.listPendingDeliveries(taskId)]);
      reply.header('Cache-Control', 'no-store');
      return {
        events: records.slice(0, MAX_EVENTS).map((r) => ({ seq: r.seq, at: iso(r.createdAt), kind: kindOf(r.event), event: r.event })),
        truncated: records.length > MAX_EVENTS,
        push: {
          configs: configs.map((c) => ({ id: c.config.id, url: withoutQuery(c.config.url), createdAt: iso(c.createdAt) })),
          pending: pending.map((p) => ({
            configId: p.configId,
            seq: p.seq,
            attempts: p.attempts,
            queuedAt: iso(p.queuedAt),
            nextAttemptAt: iso(p.nextAttemptAt),
            ...(p.lastError ? { lastError: p.lastError } : {}),
          })),
        },
      };
    });
    done();
  };
}
