/**
 * The tasks extension's requests (`tasks/get`, `tasks/update`, `tasks/cancel`), answered outside
 * the SDK for clients that declared the extension (mcp-tasks.ts holds the mapping to A2A tasks;
 * plain-tool-call.ts `tasksRequestOf` recognises the request).
 */
import type { AgentRegistry } from '../../../core/agents/agent-registry.js';
import type { A2AHandler } from '../../../core/a2a-handler.js';
import type { AuthorizationPolicy } from '../../../core/authz/policy.js';
import type { Principal } from '../../../core/authz/principal.js';
import { toolName } from '../tools/agent-tools.js';
import { json, type Answer } from '../answer.js';
import { declaresTasks, serveTasksMethod, TASKS_EXTENSION } from './mcp-tasks.js';
import { SERVER_INFO_KEY, type tasksRequestOf } from '../tools/plain-tool-call.js';
import { MCP_CODE } from '../mcp-errors.js';

export type TasksRequest = NonNullable<ReturnType<typeof tasksRequestOf>>;

export interface TasksRequestDeps {
  handler: A2AHandler;
  registry: AgentRegistry;
  policy?: AuthorizationPolicy;
  info: { name: string; title: string; version: string };
}

export async function answerTasksRequest(d: TasksRequestDeps, r: TasksRequest, principal: Principal, scopeAgent: string | undefined): Promise<Answer> {
  // SEP-2243 / SEP-2663 routing headers: an Mcp-Name naming another task is HeaderMismatch, HTTP 400.
  if (!r.nameMatches) return json(400, { jsonrpc: '2.0', id: r.id, error: { code: MCP_CODE.HeaderMismatch, message: `The Mcp-Name header must carry params.taskId of ${r.method}` } });
  if (!declaresTasks(r.meta)) {
    // SEP-2575: a request needing a capability the client did not declare is -32021, HTTP 400.
    return json(400, {
      jsonrpc: '2.0',
      id: r.id,
      error: {
        code: MCP_CODE.MissingCapability,
        message: `${r.method} needs the ${TASKS_EXTENSION} extension in the request's client capabilities`,
        data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      },
    });
  }
  const visible = (id: string) => (scopeAgent === undefined || scopeAgent === id) && !!d.registry.get(id) && (!d.policy || d.policy.canSeeAgent(principal, id, 'mcp'));
  const toolOf = (id: string) => toolName(id, d.registry.get(id)?.publicCard.skills[0]?.id ?? id);
  const answer = await serveTasksMethod(d.handler, r.method, r.params, principal, visible, toolOf);
  if ('error' in answer) return json(answer.status, { jsonrpc: '2.0', id: r.id, error: answer.error });
  return json(200, { result: { ...answer.result, _meta: { [SERVER_INFO_KEY]: d.info } }, jsonrpc: '2.0', id: r.id });
}
