/**
 * Task snapshots as a resource template: `agentport://tasks/{agentId}/{taskId}` reads the A2A
 * task (its v1.0 JSON) through the core's GetTask with the caller's principal, so what the
 * caller may not see reads exactly like what does not exist (the SDK answers both `-32602`).
 * Only agents of the endpoint's scope resolve; the template lists nothing (tasks are found
 * through tool results, whose `_meta["agentport/taskId"]` names them).
 */
import { ProtocolError, ResourceNotFoundError, ResourceTemplate, type McpServer, type ReadResourceResult } from '@modelcontextprotocol/server';
import { type A2AHandler, CallContext } from '../../../core/a2a-handler.js';
import type { Principal } from '../../../core/authz/principal.js';
import { A2AError } from '../../../protocol/a2a/errors.js';
import { QuotaExceededError } from '../../../protocol/a2a/quota-exceeded.js';

export const TASK_TEMPLATE = 'agentport://tasks/{agentId}/{taskId}';

export const taskResourceUri = (agentId: string, taskId: string) => `agentport://tasks/${encodeURIComponent(agentId)}/${encodeURIComponent(taskId)}`;

/** Same as the A2A bindings' default page of history: enough to read the conversation. */
const HISTORY_LENGTH = 20;

export function registerTaskTemplate(server: McpServer, handler: A2AHandler, agentIds: ReadonlySet<string>, principal: Principal): void {
  const ids = [...agentIds];
  server.registerResource(
    'task',
    new ResourceTemplate(TASK_TEMPLATE, { list: undefined, complete: { agentId: (v) => ids.filter((id) => id.startsWith(v)) } }),
    {
      title: 'A2A task snapshot',
      description: 'The current state of an A2A task (status, artifacts, recent history) as A2A v1.0 JSON. taskId comes from a tool result.',
      mimeType: 'application/json',
    },
    async (uri, vars): Promise<ReadResourceResult> => {
      const agentId = single(vars.agentId);
      const taskId = single(vars.taskId);
      if (!agentId || !taskId || !agentIds.has(agentId)) throw new ResourceNotFoundError(uri.href);
      try {
        const task = await handler.getTask(new CallContext(agentId, principal), { id: taskId, historyLength: HISTORY_LENGTH });
        return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(task, null, 2) }] };
      } catch (err) {
        // A quota refusal is a JSON-RPC error of its own (-32000, as on A2A), saying when to retry.
        if (err instanceof QuotaExceededError) throw new ProtocolError(err.identity.jsonrpc, err.message, { retryAfterSeconds: err.retryAfterSeconds, quotaId: err.policy.id });
        // TaskNotFound for another owner's task too: the core does not tell them apart, nor do we.
        if (err instanceof A2AError) throw new ResourceNotFoundError(uri.href);
        throw err;
      }
    },
  );
}

function single(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  if (s === undefined) return undefined;
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}
