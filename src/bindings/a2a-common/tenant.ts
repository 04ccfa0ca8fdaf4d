import type { A2AHandler } from '../../core/a2a-handler.js';
import { invalidParams } from '../../protocol/a2a/errors.js';

/** The agent a request addresses: the base path's agent, or the tenant on the shared endpoint. */
export function resolveAgent(handler: A2AHandler, routeAgentId: string | undefined, tenant: string | undefined, defaultAgentId: string): string {
  if (routeAgentId !== undefined) {
    if (tenant !== undefined && tenant !== routeAgentId) {
      throw invalidParams('tenant', `'${tenant}' is not a tenant of this endpoint; omit it or use '${routeAgentId}'`);
    }
    return routeAgentId;
  }
  const id = tenant ?? defaultAgentId;
  if (!handler.hasAgent(id)) throw invalidParams('tenant', `'${id}' is not a known tenant`);
  return id;
}
