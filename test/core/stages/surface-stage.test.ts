/**
 * The surface stage (src/core/stages/surface.ts): every call from a face is marked with that face's
 * surface, so authorization applies the surface's scopes; an MCP call's usage draft, carried on the
 * principal, is put on the context for the core. In process, the stage alone and composed.
 */
import { describe, expect, it } from 'vitest';
import { type A2AHandler, type AgentCaller, CallContext, type CallFields } from '../../../src/core/a2a-handler.js';
import type { Call } from '../../../src/core/pipeline.js';
import { ANONYMOUS, type Principal } from '../../../src/core/authz/principal.js';
import { onSurface, surfaceStage } from '../../../src/core/stages/surface.js';
import { carryUsage, UsageDraft } from '../../../src/core/usage/usage-draft.js';

const principal: Principal = { subject: 'bob', authenticated: true, scopes: ['mcp:tools'] };
const ctxOf = (more: CallFields & { principal?: Principal; skill?: string } = {}): CallContext => {
  const c = CallContext.of('echo', more.principal ?? principal, more);
  if (more.skill !== undefined) c.resolved(undefined, undefined, more.skill);
  return c;
};
const call = { op: 'getExtendedAgentCard' } as unknown as Call;

function passed(stage: ReturnType<typeof surfaceStage>, ctx: CallContext): CallContext {
  let seen: CallContext | undefined;
  void stage.call(ctx, call, (c) => {
    seen = c;
    return Promise.resolve(undefined);
  });
  if (!seen) throw new Error('the stage did not call next');
  return seen;
}

describe('surfaceStage', () => {
  it('marks a call of another (or no) surface with its own in place, keeping the rest of the context', () => {
    const ctx = ctxOf({ surface: 'a2a', skill: 's' });
    const seen = passed(surfaceStage('mcp'), ctx);
    expect(seen).toBe(ctx);
    expect(seen.surface).toBe('mcp');
    expect(seen.skill).toBe('s');
    expect(seen.principal).toBe(principal);
    expect(passed(surfaceStage('a2a'), ctxOf()).surface).toBe('a2a');
  });

  it('passes a context already marked, with no draft to move, on as it is', () => {
    const ctx = ctxOf({ surface: 'mcp' });
    expect(passed(surfaceStage('mcp'), ctx)).toBe(ctx);
    const withUsage = ctxOf({ surface: 'mcp', usage: new UsageDraft('mcp', 1) });
    expect(passed(surfaceStage('mcp'), withUsage)).toBe(withUsage);
  });

  it('puts the draft the principal carries on the context; a draft already there wins', () => {
    const carried = new UsageDraft('mcp', 1);
    const ctx = ctxOf({ surface: 'mcp', principal: carryUsage(principal, carried) });
    const seen = passed(surfaceStage('mcp'), ctx);
    expect(seen.usage).toBe(carried);
    expect(seen.surface).toBe('mcp');
    const own = new UsageDraft('a2a', 2);
    expect(passed(surfaceStage('mcp'), ctxOf({ surface: 'mcp', usage: own, principal: carryUsage(principal, carried) })).usage).toBe(own);
  });

  it('the tenant lookup carries the surface on the caller; no caller stays none', () => {
    const stage = surfaceStage('mcp');
    const seen: Array<[string, AgentCaller | undefined]> = [];
    const next = (id: string, caller?: AgentCaller) => {
      seen.push([id, caller]);
      return id === 'echo';
    };
    expect(stage.hasAgent?.('echo', { principal: ANONYMOUS, surface: 'a2a' }, next)).toBe(true);
    expect(stage.hasAgent?.('other', undefined, next)).toBe(false);
    expect(seen).toEqual([
      ['echo', { principal: ANONYMOUS, surface: 'mcp' }],
      ['other', undefined],
    ]);
    expect(stage.name).toBe('surface');
  });
});

describe('onSurface', () => {
  it('the handler a face calls runs every operation and the tenant lookup marked with the face’s surface', async () => {
    const seen: Array<string | undefined> = [];
    const inner = {
      getTask: async (ctx: CallContext) => {
        seen.push(ctx.surface);
        return { id: 't' };
      },
      hasAgent: (_id: string, caller?: AgentCaller) => {
        seen.push(caller?.surface);
        return true;
      },
    } as unknown as A2AHandler;
    const face = onSurface(inner, 'mcp');
    await face.getTask(ctxOf({ surface: 'a2a' }), { id: 't' });
    expect(face.hasAgent('echo', { principal })).toBe(true);
    expect(seen).toEqual(['mcp', 'mcp']);
  });
});
