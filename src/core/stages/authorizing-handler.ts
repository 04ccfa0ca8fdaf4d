/**
 * The authorize stage: every binding (JSON-RPC, HTTP+JSON, gRPC, v0.3, MCP) reaches the task
 * service through it, so each operation is authorized once, in the core, before the task service
 * looks anything up. The agent and the skills come resolved (resolve.ts). Owner scoping (a caller
 * sees only its own tasks) stays in the task directory, where it is applied before any task is read.
 */
import type { Stage } from '../pipeline.js';
import { AccessDenied } from '../authz/access-denied.js';
import type { AuthorizationPolicy, Target } from '../authz/policy.js';

export interface AuthorizeOptions {
  /** the RFC 9728 metadata URL named in challenges for an agent's endpoints */
  resourceMetadataUrl?: (agentId: string, surface: 'a2a' | 'mcp') => string;
}

export function authorizeStage(policy: AuthorizationPolicy, o: AuthorizeOptions = {}): Stage {
  return {
    name: 'authorize',
    call(ctx, call, next) {
      const surface = ctx.surface ?? 'a2a';
      try {
        // A policy that enforces nothing allows every call: no target is made for it (issue 26,
        // bytes a request). The target's optional field is set, not spread from a literal.
        if (policy.enforcing) {
          const target: Target = { agentId: ctx.agentId, surface };
          if (ctx.skills) target.skillIds = ctx.skills;
          policy.authorize(ctx.principal, call.operation.action, target);
        }
      } catch (e) {
        if (e instanceof AccessDenied && o.resourceMetadataUrl) e.resourceMetadata = o.resourceMetadataUrl(ctx.agentId, surface);
        throw e;
      }
      // The caller's usecases go with the call: the task directory shows only their data.
      ctx.authorized(policy.usecases(ctx.principal));
      return next(ctx);
    },
  };
}
