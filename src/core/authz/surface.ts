/**
 * The A2A operations as reached from another surface (MCP): every call is marked with it, so the
 * authorization layer applies that surface's scopes (`mcp:tools…` instead of `a2a:*`) while the
 * rest of the decision — skills, usecases, owners — stays the same.
 */
import { usageCarriedBy } from '../usage/usage-draft.js';
import type { A2AHandler, AgentCaller, CallContext } from '../a2a-handler.js';
import { ForwardingA2AHandler } from '../forwarding-a2a-handler.js';

class SurfaceHandler extends ForwardingA2AHandler {
  constructor(
    inner: A2AHandler,
    private readonly surface: 'a2a' | 'mcp',
  ) {
    super(inner);
  }

  protected override enter(ctx: CallContext): CallContext {
    const usage = ctx.usage ?? usageCarriedBy(ctx.principal);
    if (ctx.surface === this.surface && usage === ctx.usage) return ctx;
    return { ...ctx, surface: this.surface, usage };
  }

  override hasAgent(agentId: string, caller?: AgentCaller): boolean {
    return this.inner.hasAgent(agentId, caller && { ...caller, surface: this.surface });
  }
}

export function onSurface(handler: A2AHandler, surface: 'a2a' | 'mcp'): A2AHandler {
  return new SurfaceHandler(handler, surface);
}
