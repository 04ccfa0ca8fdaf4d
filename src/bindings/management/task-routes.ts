/**
 * `GET /api/v1/agents/{agentId}/tasks/{taskId}`: any subject's task, for administrators (scope
 * `admin`), with its owner. The A2A and MCP faces stay owner-scoped for every caller, admins
 * included (an admin's GetTask on another subject's task is TaskNotFound, like anyone's): reading
 * across owners is a management action, so it lives here, under the management API's gate, where
 * the console can use it and no protocol client ever meets it (docs/auth.md).
 */
import type { FastifyPluginCallback } from 'fastify';
import { A2AError } from '../../protocol/a2a/errors.js';
import type { StoredTask } from '../../store/store.js';
import { requireAdmin, sendError, type AdminGuardDeps } from './admin-guard.js';

export interface TaskAdmin {
  getTask(agentId: string, taskId: string): Promise<StoredTask | undefined>;
}

/** A Fastify plugin: `app.register(taskRoutes(deps))`. */
export function taskRoutes(d: AdminGuardDeps & { store: TaskAdmin }): FastifyPluginCallback {
  return (app, _opts, done) => {
    app.get<{ Params: { agentId: string; taskId: string } }>('/api/v1/agents/:agentId/tasks/:taskId', async (req, reply) => {
      if (!(await requireAdmin(d, req, reply))) return reply;
      const { agentId, taskId } = req.params;
      const stored = await d.store.getTask(agentId, taskId);
      if (!stored || stored.agentId !== agentId) return sendError(reply, new A2AError('TaskNotFound', `Task ${taskId} was not found`));
      reply.header('Cache-Control', 'no-store');
      return { agentId: stored.agentId, owner: stored.owner, createdAt: new Date(stored.createdAt).toISOString(), task: stored.task };
    });
    done();
  };
}
