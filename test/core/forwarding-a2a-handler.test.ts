import { describe, expect, it } from 'vitest';
import type { A2AHandler, CallContext, StreamItem } from '../../src/core/a2a-handler.js';
import { ForwardingA2AHandler, type A2ACall } from '../../src/core/forwarding-a2a-handler.js';
import { ANONYMOUS } from '../../src/core/authz/principal.js';

const OPS = [
  'sendMessage',
  'sendStreamingMessage',
  'getTask',
  'listTasks',
  'cancelTask',
  'subscribeToTask',
  'createTaskPushNotificationConfig',
  'getTaskPushNotificationConfig',
  'listTaskPushNotificationConfigs',
  'deleteTaskPushNotificationConfig',
  'getExtendedAgentCard',
] as const;
const STREAMS = new Set<string>(['sendStreamingMessage', 'subscribeToTask']);

/** An inner handler that answers every operation with what it was called with. */
function recordingInner(): A2AHandler & { seen: Array<{ op: string; ctx: CallContext; args: unknown[] }> } {
  const seen: Array<{ op: string; ctx: CallContext; args: unknown[] }> = [];
  const inner: Record<string, unknown> = { seen };
  for (const op of OPS) {
    inner[op] = (ctx: CallContext, ...args: unknown[]) => {
      seen.push({ op, ctx, args });
      if (!STREAMS.has(op)) return Promise.resolve({ op });
      return (async function* (): AsyncGenerator<StreamItem> {
        yield { seq: 1, response: { message: { messageId: op, role: 'ROLE_AGENT', parts: [] } } };
      })();
    };
  }
  inner.agentExtensions = (agentId: string) => ({ supported: [agentId], required: [] });
  inner.hasAgent = (agentId: string) => agentId === 'known';
  return inner as unknown as A2AHandler & { seen: typeof seen };
}

class Tagging extends ForwardingA2AHandler {
  calls: A2ACall[] = [];
  refuse = false;
  protected override enter(ctx: CallContext, call: A2ACall): CallContext {
    this.calls.push(call);
    if (this.refuse) throw new Error(`refused ${call.op}`);
    return { ...ctx, surface: 'mcp' };
  }
}

const ctx: CallContext = { agentId: 'a', principal: ANONYMOUS, requestedExtensions: [] };
const req = { id: 't-1' };

function invoke(h: A2AHandler, op: (typeof OPS)[number]): Promise<unknown> | AsyncIterable<StreamItem> {
  const f = (h as unknown as Record<string, (...a: unknown[]) => Promise<unknown> | AsyncIterable<StreamItem>>)[op]!;
  return op === 'getExtendedAgentCard' ? f.call(h, ctx) : op === 'subscribeToTask' ? f.call(h, ctx, req, 7) : f.call(h, ctx, req);
}

describe('ForwardingA2AHandler', () => {
  it('forwards every operation with the context enter() returned and the request as given', async () => {
    const inner = recordingInner();
    const h = new Tagging(inner);
    for (const op of OPS) {
      const out = invoke(h, op);
      if (STREAMS.has(op)) {
        const items: StreamItem[] = [];
        for await (const item of out as AsyncIterable<StreamItem>) items.push(item);
        expect(items).toHaveLength(1);
      } else {
        expect(await out).toEqual({ op });
      }
    }
    expect(inner.seen.map((s) => s.op)).toEqual([...OPS]);
    for (const s of inner.seen) expect(s.ctx.surface).toBe('mcp');
    expect(inner.seen.find((s) => s.op === 'subscribeToTask')!.args).toEqual([req, 7]);
    expect(inner.seen.find((s) => s.op === 'getTask')!.args).toEqual([req]);
    expect(h.calls.map((c) => c.op)).toEqual([...OPS]);
  });

  it('turns a refusal into a rejected promise, and for streams into a failure of the first next()', async () => {
    const inner = recordingInner();
    const h = new Tagging(inner);
    h.refuse = true;
    await expect(h.getTask(ctx, req)).rejects.toThrow('refused getTask');
    const stream = h.subscribeToTask(ctx, req);
    expect(h.calls).toHaveLength(1); // nothing runs until the stream is read
    await expect(stream[Symbol.asyncIterator]().next()).rejects.toThrow('refused subscribeToTask');
    expect(inner.seen).toHaveLength(0);
  });

  it('forwards agentExtensions and hasAgent unchanged', () => {
    const h = new Tagging(recordingInner());
    expect(h.agentExtensions('x')).toEqual({ supported: ['x'], required: [] });
    expect(h.hasAgent('known')).toBe(true);
    expect(h.hasAgent('other')).toBe(false);
  });
});
