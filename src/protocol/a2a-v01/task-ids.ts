/**
 * v0.1 clients choose the task id (`TaskSendParams.id`); Agentport's ids are the server's. The two
 * coexist by namespacing: a v0.1 id becomes the server task id `<client id>.<12 hex>`, where the
 * suffix is a hash of the agent and the caller's subject. So two callers who pick the same id get
 * two tasks, neither can reach or even detect the other's (owner scoping stays the core's), and the
 * client's id is recovered from the server id by dropping the suffix (push bodies need that).
 * v1.0 and v0.3 clients of the same owner see the namespaced id and can use it as any task id.
 */
import { createHash } from 'node:crypto';

const SUFFIX = /^(.+)\.[0-9a-f]{12}$/;

export function serverTaskId(clientId: string, agentId: string, subject: string): string {
  const h = createHash('sha256').update(agentId).update('\0').update(subject).digest('hex').slice(0, 12);
  return `${clientId}.${h}`;
}

/** The id a v0.1 client chose, from a namespaced server id; other ids are returned unchanged. */
export const clientTaskId = (serverId: string): string => SUFFIX.exec(serverId)?.[1] ?? serverId;
