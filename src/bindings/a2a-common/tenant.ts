import type { A2AHandler } from '../../core/a2a-handler.js';
import type { Principal } from '../../core/authz/principal.js';
import { unknownTenant } from '../../core/authz/unknown-agent.js';
import { invalidParams } from '../../protocol/a2a/errors.js';

/**
 * The agent a request addresses: the base path's agent, or the tenant on the shared endpoint. A
 * tenant the caller may not see is as unknown as one that does not exist (core/authz).
 */
export function resolveAgent(handler: A2AHandler, routeAgentId: string | undefined, tenant: string | undefined, defaultAgentId: string, principal: Principal): string {
  if (routeAgentId !== undefined) {
    if (tenant !== undefined && tenant !== routeAgentId) {
      throw invalidParams('tenant', `'${tenant}' is not a tenant of this endpoint; omit it or use '${routeAgentId}'`);
    }
    return routeAgentId;
  }
  const id = tenant ?? defaultAgentId;
  if (!handler.hasAgent(id, { principal })) throw unknownTenant(id);
  return id;
}
