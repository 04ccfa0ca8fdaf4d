/**
 * The call context as one class (src/core/call-context.ts, ADR 0048): every context has one V8
 * hidden class whatever a face set and whatever the stages filled in, and a stage's own fields
 * are written only by that stage's method.
 */
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { CallContext } from '../../src/core/call-context.js';
import type { RegisteredAgent } from '../../src/core/agents/agent-registry.js';
import type { Principal } from '../../src/core/authz/principal.js';
import { UsageDraft } from '../../src/core/usage/usage-draft.js';
import type { Context } from '../../src/observability/tracing/index.js';

/** V8's own answer to "do these two objects share a hidden class" (natives syntax, enabled for this check only). */
function sharesHiddenClass(): (a: object, b: object) => boolean {
  setFlagsFromString('--allow-natives-syntax');
  return new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
}

const principal: Principal = { subject: 'alice', authenticated: true, scopes: [] };
const agent = { id: 'echo' } as unknown as RegisteredAgent;
const trace = {} as Context;

describe('CallContext', () => {
  it('has one hidden class for a context as a face builds it and after every stage filled its fields', () => {
    const same = sharesHiddenClass();
    const plain = new CallContext('echo', principal);
    const built = [
      CallContext.of('echo', principal, { signal: new AbortController().signal, clientGone: () => false, usage: new UsageDraft('a2a', 0) }, ['urn:x']),
      CallContext.of('echo', principal, { wireVersion: '0.1', clientTaskId: 't', partOfCall: true, forwarded: true, messageIdMinted: true }),
      CallContext.of('echo', principal, { surface: 'mcp', trace, usecases: ['hr'] }),
    ];
    const filled = new CallContext('echo', principal);
    filled.onSurface('mcp', new UsageDraft('mcp', 0));
    filled.traced(trace);
    filled.resolved(agent, ['talk'], 'talk');
    filled.authorized(['hr']);
    for (const ctx of [...built, filled]) expect(same(plain, ctx)).toBe(true);
  });

  it('starts with no stage field set, the flags off and no extensions asked for', () => {
    const ctx = new CallContext('echo', principal);
    expect([ctx.agent, ctx.skills, ctx.skill, ctx.usecases, ctx.trace, ctx.surface, ctx.usage]).toEqual([undefined, undefined, undefined, undefined, undefined, undefined, undefined]);
    expect([ctx.partOfCall, ctx.forwarded, ctx.messageIdMinted]).toEqual([false, false, false]);
    expect(ctx.requestedExtensions).toEqual([]);
    expect(Object.isFrozen(ctx.requestedExtensions)).toBe(true);
  });

  it('takes each stage’s fields from that stage’s method, a later call of it replacing them all', () => {
    const ctx = new CallContext('echo', principal);
    ctx.resolved(agent, ['a', 'b'], 'a');
    expect([ctx.agent, ctx.skills, ctx.skill]).toEqual([agent, ['a', 'b'], 'a']);
    ctx.resolved(undefined, undefined, undefined);
    expect([ctx.agent, ctx.skills, ctx.skill]).toEqual([undefined, undefined, undefined]);
    ctx.authorized(['hr']);
    expect(ctx.usecases).toEqual(['hr']);
    // @ts-expect-error: the resolve stage's field is written by `resolved` only
    ctx.agent = agent;
    // @ts-expect-error: the authorize stage's field is written by `authorized` only
    ctx.usecases = [];
  });
});
