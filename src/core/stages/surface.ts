/**
 * The A2A operations as reached from another surface (MCP): every call is marked with it, so the
 * authorization layer applies that surface's scopes (`mcp:tools…` instead of `a2a:*`) while the
 * rest of the decision — skills, usecases, owners — stays the same. The first stage of the
 * pipeline an MCP face calls (core/pipeline.ts); the face's plain tools/call path marks its
 * contexts the same way itself and calls the pipeline behind it (ADR 0051).
 */
import { usageCarriedBy } from '../usage/usage-draft.js';
import type { A2AHandler } from '../a2a-handler.js';
import { compose, type Stage } from '../pipeline.js';

export function surfaceStage(surface: 'a2a' | 'mcp'): Stage {
  return {
    name: 'surface',
    call(ctx, _call, next) {
      const usage = ctx.usage ?? usageCarriedBy(ctx.principal);
      ctx.onSurface(surface, usage);
      return next(ctx);
    },
    hasAgent: (agentId, caller, next) => next(agentId, caller && { principal: caller.principal, surface }),
  };
}

/** The pipeline as a face of `surface` calls it: marked with the surface, then the server's own stages. */
export function onSurface(handler: A2AHandler, surface: 'a2a' | 'mcp'): A2AHandler {
  return compose([surfaceStage(surface)], handler);
}
