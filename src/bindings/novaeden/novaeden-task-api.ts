/**
 * The REST task API of the service Agentport replaces (docs/migrating-from-novaeden.md), as a thin
 * face over the same A2A handler every binding calls: the same authorization (a2a:discover reads,
 * a2a:publish writes, the hidden-agent rule, usecases) and the same owner-scoped tasks.
 *
 *   POST /api/v1/agents/{agent_id}/tasks   create a task: `{message, sessionId?, metadata?}` → Task
 *   GET  /api/v1/tasks/{task_id}           the task (`?historyLength=n`)
 *   POST /api/v1/tasks/{task_id}/messages  another message on the task: `{message, metadata?}` → Task
 *   GET  /api/v1/tasks/{task_id}/status    `{id, sessionId, status}`
 *   GET  /a2a/agents                       the agents' cards (a2a:discover)
 *   GET  /a2a/tasks/{id}                   = GET /api/v1/tasks/{id}
 *   POST /a2a/agents/{id}/tasks            = POST /api/v1/agents/{id}/tasks
 *
 * Its tasks and messages have the A2A shape the replaced service documented (v0.1: `sessionId`,
 * parts with `type`), translated by src/protocol/a2a-v01 like the v0.1 JSON-RPC methods.
 */
import { usageOf } from '../../edge/call-usage.js';
import { carryUsage, usageCarriedBy } from '../../core/usage/usage-draft.js';
import type { FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Authenticator } from '../../auth/authenticator.js';
import { type A2AHandler, CallContext } from '../../core/a2a-handler.js';
import type { AgentRegistry } from '../../core/agents/agent-registry.js';
import { admitToAgentPath } from '../../core/authz/agent-lookup.js';
import { AccessDenied } from '../../core/authz/access-denied.js';
import type { AuthorizationPolicy } from '../../core/authz/policy.js';
import type { Principal } from '../../core/authz/principal.js';
import { A2AError, invalidParams, toA2AError } from '../../protocol/a2a/errors.js';
import type { SendMessageRequest, Task } from '../../protocol/a2a/types.js';
import { obj, optJsonObject, optStr } from '../../protocol/a2a-v03/fields.js';
import { messageToV1 } from '../../protocol/a2a-v01/messages.js';
import { statusFromV1, taskFromV1 } from '../../protocol/a2a-v01/tasks.js';
import { sendError } from '../management/admin-guard.js';
import { novaedenAgentCards } from './novaeden-agent-list.js';
import { routeCaller } from '../routes/route-caller.js';

export interface NovaedenTaskApiDeps {
  registry: AgentRegistry;
  handler: A2AHandler;
  auth: Authenticator;
  policy?: AuthorizationPolicy;
  /** the RFC 9728 metadata URL of an A2A base path (`/a2a/{id}`), named in challenges */
  resourceMetadataUrl: (path: string) => string;
}

/** Second segments of `GET /a2a/tasks/{x}` that are A2A HTTP+JSON operations of an agent named `tasks`. */
const A2A_OPERATION_ROOTS = new Set(['tasks', 'extendedAgentCard', 'message:send', 'message:stream', 'v1', 'agent']);

/**
 * Whether a request under `/a2a/` is one of this API's routes rather than the A2A protocol of an
 * agent called `agents` or `tasks`. The rule is static (it never asks whether such an agent
 * exists, so it cannot tell a hidden agent from none): `GET /a2a/agents` and
 * `POST /a2a/agents/{id}/tasks` are never A2A operations; `GET /a2a/tasks/{x}` is this API's
 * unless `x` is an A2A operation word (`tasks`, `extendedAgentCard`, …), which no task id is.
 */
export function isNovaedenA2APath(req: IncomingMessage): boolean {
  const url = req.url ?? '/';
  if (!url.startsWith('/a2a/')) return false;
  // Every A2A request asks: most name an agent, whose first segment is neither of this API's.
  if (!url.startsWith('/a2a/agents') && !url.startsWith('/a2a/tasks') && !url.startsWith('/a2a//')) return false;
  const q = url.indexOf('?');
  const s = (q < 0 ? url : url.slice(0, q)).split('/').filter(Boolean).slice(1);
  if (req.method === 'GET' && s.length === 1 && s[0] === 'agents') return true;
  if (req.method === 'POST' && s.length === 3 && s[0] === 'agents' && s[2] === 'tasks') return true;
  return req.method === 'GET' && s.length === 2 && s[0] === 'tasks' && !A2A_OPERATION_ROOTS.has(s[1]!);
}

/**
 * The writes of this API under `/api/v1/` that are not management actions: they need a2a:publish,
 * not admin, so an admin-only gate of `/api/v1/*` bodies must let them through (the routes check
 * the caller themselves, before reading the body's message).
 */
export function isNovaedenTaskWrite(method: string, url: string): boolean {
  if (method !== 'POST') return false;
  const q = url.indexOf('?');
  const s = (q < 0 ? url : url.slice(0, q)).split('/').filter(Boolean);
  // api v1 agents {id} tasks | api v1 tasks {id} messages
  return s.length === 5 && s[0] === 'api' && s[1] === 'v1' && ((s[2] === 'agents' && s[4] === 'tasks') || (s[2] === 'tasks' && s[4] === 'messages'));
}

/** A Fastify plugin: `app.register(novaedenTaskApi(deps))`. */
export function novaedenTaskApi(d: NovaedenTaskApiDeps): FastifyPluginCallback {
  const challengeFor = (err: A2AError, path: string, scope: string) => d.auth.challenge(err, { scope, resourceMetadata: d.resourceMetadataUrl(path) });

  /** Sends a refusal; a 401 gets a challenge naming the scope the route needs. */
  const refuse = (reply: FastifyReply, e: unknown, path: string, scope: string) => {
    const err = toA2AError(e);
    if (err instanceof AccessDenied && err.resourceMetadata === undefined) err.resourceMetadata = d.resourceMetadataUrl(path);
    if (err.kind === 'Unauthenticated' && !(err instanceof AccessDenied)) reply.header('WWW-Authenticate', challengeFor(err, path, scope));
    return sendError(reply, err);
  };
  const ctxOf = (agentId: string, principal: Principal): CallContext => CallContext.of(agentId, principal, { usage: usageCarriedBy(principal) });

  /** The agent, admitted by the hidden-agent rule, and the caller; undefined once a refusal is sent. */
  const admit = async (req: FastifyRequest, reply: FastifyReply, agentId: string): Promise<Principal | undefined> => {
    const authenticate = () => routeCaller(d.auth, req.raw, `/a2a/${agentId}`);
    const admitted = await admitToAgentPath(d.registry, d.policy, agentId, 'a2a', authenticate);
    if (admitted.unknown) return void sendError(reply, new A2AError('TaskNotFound', admitted.message));
    try {
      return withUsage(req, admitted.principal ?? (await authenticate()));
    } catch (e) {
      return void refuse(reply, e, `/a2a/${agentId}`, 'a2a:publish');
    }
  };

  /**
   * The caller's task of this id, whichever agent runs it: each agent the caller may see is asked
   * in turn (the core answers TaskNotFound for another owner's task, exactly as for none).
   */
  const findTask = async (principal: Principal, taskId: string, historyLength?: number): Promise<{ agentId: string; task: Task }> => {
    for (const a of d.registry.list()) {
      if (d.policy && !d.policy.canSeeAgent(principal, a.id)) continue;
      try {
        return { agentId: a.id, task: await d.handler.getTask(ctxOf(a.id, principal), { id: taskId, ...(historyLength !== undefined ? { historyLength } : {}) }) };
      } catch (e) {
        if (!(e instanceof A2AError && e.kind === 'TaskNotFound')) throw e;
      }
    }
    throw new A2AError('TaskNotFound', `Task ${taskId} was not found`);
  };

  /** The caller of a route with no agent in its path: credentials for the whole server. */
  const callerOf = async (req: FastifyRequest, reply: FastifyReply, scope: string): Promise<Principal | undefined> => {
    try {
      return withUsage(req, await routeCaller(d.auth, req.raw));
    } catch (e) {
      return void refuse(reply, e, '/api/v1', scope);
    }
  };

  /**
   * Run before the body is read (a route `onRequest` hook), as on every other face: an unknown or
   * hidden agent and a failing credential are answered on the headers, and so is a caller with no
   * credential, which no policy lets send (issue 25 D6b: a 4 MiB anonymous body was read first).
   */
  const admitBeforeBody = async (req: FastifyRequest<{ Params: { agentId: string } }>, reply: FastifyReply) => {
    const { agentId } = req.params;
    const principal = await admit(req, reply, agentId);
    if (!principal) return reply;
    if (principal.authenticated || !d.policy?.enforcing) return;
    try {
      d.policy.authorize(principal, 'send-message', { agentId });
    } catch (e) {
      return refuse(reply, e, `/a2a/${agentId}`, 'a2a:publish');
    }
  };

  const create = async (req: FastifyRequest<{ Params: { agentId: string } }>, reply: FastifyReply) => {
    const { agentId } = req.params;
    const principal = await admit(req, reply, agentId);
    if (!principal) return reply;
    try {
      const body = parseBody(req.body);
      const request = sendRequest(body, body.sessionId === undefined ? {} : { contextId: body.sessionId });
      return taskReply(reply, await send(agentId, principal, request));
    } catch (e) {
      return refuse(reply, e, `/a2a/${agentId}`, 'a2a:publish');
    }
  };

  const send = async (agentId: string, principal: Principal, request: SendMessageRequest): Promise<Task> => {
    const r = await d.handler.sendMessage(ctxOf(agentId, principal), request);
    if ('task' in r) return r.task;
    // An agent that answered with a message and no task: shown as the completed task it stands for.
    const m = r.message;
    return { id: m.taskId ?? m.messageId, contextId: m.contextId ?? '', status: { state: 'TASK_STATE_COMPLETED', message: m, timestamp: new Date().toISOString() } };
  };

  const getTask = async (req: FastifyRequest<{ Params: { taskId: string }; Querystring: { historyLength?: string } }>, reply: FastifyReply) => {
    const principal = await callerOf(req, reply, 'a2a:discover');
    if (!principal) return reply;
    try {
      const h = req.query.historyLength;
      if (h !== undefined && !/^\d{1,6}$/.test(h)) throw invalidParams('historyLength', 'must be a non-negative integer');
      const { task } = await findTask(principal, req.params.taskId, h === undefined ? undefined : Number(h));
      return taskReply(reply, task);
    } catch (e) {
      return refuse(reply, e, '/api/v1', 'a2a:discover');
    }
  };

  return (app, _opts, done) => {
    app.post('/api/v1/agents/:agentId/tasks', { onRequest: admitBeforeBody }, create);
    app.post('/a2a/agents/:agentId/tasks', { onRequest: admitBeforeBody }, create);
    app.get('/api/v1/tasks/:taskId', getTask);
    app.get('/a2a/tasks/:taskId', getTask);
    app.get<{ Params: { taskId: string } }>('/api/v1/tasks/:taskId/status', async (req, reply) => {
      const principal = await callerOf(req, reply, 'a2a:discover');
      if (!principal) return reply;
      try {
        const { task } = await findTask(principal, req.params.taskId, 0);
        reply.header('Cache-Control', 'no-store');
        return { id: task.id, sessionId: task.contextId, status: statusFromV1(task.status) };
      } catch (e) {
        return refuse(reply, e, '/api/v1', 'a2a:discover');
      }
    });
    app.post<{ Params: { taskId: string } }>('/api/v1/tasks/:taskId/messages', async (req, reply) => {
      const principal = await callerOf(req, reply, 'a2a:publish');
      if (!principal) return reply;
      try {
        const body = parseBody(req.body);
        // Which agent runs it is found by reading the task, which needs a2a:discover on top of
        // a2a:publish; a sender without it is refused rather than told whether the task exists.
        const { agentId, task } = await findTask(principal, req.params.taskId, 0);
        return taskReply(reply, await send(agentId, principal, sendRequest(body, { taskId: task.id, contextId: task.contextId })));
      } catch (e) {
        return refuse(reply, e, '/api/v1', 'a2a:publish');
      }
    });
    app.get('/a2a/agents', async (req, reply) => {
      const principal = await callerOf(req, reply, 'a2a:discover');
      if (!principal) return reply;
      try {
        // The replaced service's scope matrix: listing agents on this path needs a2a:discover.
        d.policy?.authorize(principal, 'read-tasks');
      } catch (e) {
        return refuse(reply, e, '/api/v1', 'a2a:discover');
      }
      reply.header('Cache-Control', 'private, no-store');
      return novaedenAgentCards(d.registry, d.policy, principal);
    });
    done();
  };
}

interface TaskBody {
  message: unknown;
  sessionId?: string;
  metadata?: Record<string, unknown>;
}

function parseBody(raw: unknown): TaskBody {
  let v: unknown;
  try {
    v = typeof raw === 'string' && raw !== '' ? JSON.parse(raw) : raw;
  } catch {
    throw new A2AError('InvalidRequest', 'The request body is not valid JSON');
  }
  if (v === undefined || v === '') throw new A2AError('InvalidRequest', 'A JSON body with a message is required');
  const b = obj(v, 'body');
  if (b.message === undefined || b.message === null) throw invalidParams('message', 'is required');
  const sessionId = optStr(b.sessionId, 'sessionId');
  const metadata = optJsonObject(b.metadata, 'metadata');
  return { message: b.message, ...(sessionId ? { sessionId } : {}), ...(metadata ? { metadata } : {}) };
}

function sendRequest(body: TaskBody, ids: { taskId?: string; contextId?: string }): SendMessageRequest {
  const message = { ...messageToV1(body.message), ...ids };
  return { message, ...(body.metadata ? { metadata: body.metadata as SendMessageRequest['metadata'] } : {}) };
}

function taskReply(reply: FastifyReply, task: Task) {
  reply.header('Cache-Control', 'no-store');
  return reply.code(200).send(taskFromV1(task));
}

/** The caller, carrying the request's usage draft to the core calls made for it. */
function withUsage(req: FastifyRequest, principal: Principal): Principal {
  const usage = usageOf(req.raw);
  return usage ? carryUsage(principal, usage) : principal;
}
