import { describe, expect, it } from 'vitest';
import { type A2AHandler, CallContext, type StreamItem } from '../../src/core/a2a-handler.js';
import { compose, entering, type Call, type Stage } from '../../src/core/pipeline.js';
import { OPERATIONS } from '../../src/core/operations.js';
import { ANONYMOUS } from '../../src/core/authz/principal.js';
import { UsageDraft } from '../../src/core/usage/usage-draft.js';
import { A2AError } from '../../src/protocol/a2a/errors.js';

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

/** A stage that records the calls it sees, marks them with the MCP surface, or refuses them. */
function tagging(): Stage & { calls: Call[]; refuse: boolean } {
  const t = {
    calls: [] as Call[],
    refuse: false,
    ...entering('tagging', (ctx, call) => {
      t.calls.push(call);
      if (t.refuse) throw new Error(`refused ${call.op}`);
      ctx.onSurface('mcp', ctx.usage);
      return ctx;
    }),
  };
  return t;
}

/** The id a call's request names (every request but GetExtendedAgentCard's has one). */
const idOf = (call: Call): string => ('req' in call ? (call.req as { id: string }).id : '');

/** A fresh context per call: the stages fill it in place. */
const ctx = (): CallContext => new CallContext('a', ANONYMOUS);
const req = { id: 't-1' };

function invoke(h: A2AHandler, op: (typeof OPS)[number]): Promise<unknown> | AsyncIterable<StreamItem> {
  const f = (h as unknown as Record<string, (...a: unknown[]) => Promise<unknown> | AsyncIterable<StreamItem>>)[op]!;
  return op === 'getExtendedAgentCard' ? f.call(h, ctx()) : op === 'subscribeToTask' ? f.call(h, ctx(), req, 7) : f.call(h, ctx(), req);
}

describe('the call pipeline (compose)', () => {
  it('the operation table lists the eleven A2A operations, the two streams among them', () => {
    expect(OPERATIONS.map((o) => o.method)).toEqual([...OPS]);
    expect(OPERATIONS.filter((o) => o.stream).map((o) => o.name)).toEqual(['SendStreamingMessage', 'SubscribeToTask']);
    expect(OPERATIONS.filter((o) => o.createsTask).map((o) => o.name)).toEqual(['SendMessage', 'SendStreamingMessage']);
  });

  it('runs every operation through the stage with the context it passed on and the request as given', async () => {
    const inner = recordingInner();
    const stage = tagging();
    const h = compose([stage], inner);
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
    expect(stage.calls.map((c) => c.op)).toEqual([...OPS]);
    expect(stage.calls.map((c) => c.operation.method)).toEqual([...OPS]);
  });

  it('runs the stages in the order of the list', async () => {
    const order: string[] = [];
    const named = (name: string): Stage => entering(name, (c) => (order.push(name), c));
    const h = compose([named('first'), named('second'), named('third')], recordingInner());
    await h.getTask(ctx(), req);
    expect(order).toEqual(['first', 'second', 'third']);
  });

  it('walks each call through every stage on its own, while other calls of the same operation are between stages', async () => {
    // Each call's one `next` walks the list (PipelineCall): two calls of one operation, the first
    // held inside a stage that waits before passing it on, must each pass every stage once.
    const passed: string[] = [];
    const gates: Array<() => void> = [];
    const waiting: Stage = {
      name: 'waiting',
      call: (c, call, next) => {
        passed.push(`waiting ${idOf(call)}`);
        return new Promise<void>((resolve) => gates.push(resolve)).then(() => next(c) as Promise<unknown>);
      },
    };
    const noting = (name: string): Stage => entering(name, (c, call) => (passed.push(`${name} ${idOf(call)}`), c));
    const inner = recordingInner();
    const h = compose([noting('first'), waiting, noting('last')], inner);
    const one = h.getTask(ctx(), { id: 'one' });
    const two = h.getTask(ctx(), { id: 'two' });
    expect(passed).toEqual(['first one', 'waiting one', 'first two', 'waiting two']);
    gates[1]!();
    expect(await two).toEqual({ op: 'getTask' });
    gates[0]!();
    expect(await one).toEqual({ op: 'getTask' });
    expect(passed).toEqual(['first one', 'waiting one', 'first two', 'waiting two', 'last two', 'last one']);
    expect(inner.seen.map((s) => s.args)).toEqual([[{ id: 'two' }], [{ id: 'one' }]]);
  });

  it('turns a refusal into a rejected promise, and for streams into a failure of the first next()', async () => {
    const inner = recordingInner();
    const stage = tagging();
    const h = compose([stage], inner);
    stage.refuse = true;
    await expect(h.getTask(ctx(), req)).rejects.toThrow('refused getTask');
    const stream = h.subscribeToTask(ctx(), req);
    expect(stage.calls).toHaveLength(1); // nothing runs until the stream is read
    await expect(stream[Symbol.asyncIterator]().next()).rejects.toThrow('refused subscribeToTask');
    expect(inner.seen).toHaveLength(0);
  });

  it('a refusal by a later stage, thrown or rejected, reaches the caller as one rejection and the call usage draft as its outcome', async () => {
    const thrown: Stage = {
      name: 'thrown',
      call: () => {
        throw new A2AError('TaskNotFound', 'no such task');
      },
    };
    const rejected: Stage = { name: 'rejected', call: () => Promise.reject(new A2AError('UnsupportedOperation', 'not here')) };
    for (const [last, reason] of [
      [thrown, 'TASK_NOT_FOUND'],
      [rejected, 'UNSUPPORTED_OPERATION'],
    ] as const) {
      const inner = recordingInner();
      const h = compose([entering('first', (c) => c), entering('second', (c) => c), last], inner);
      const usage = new UsageDraft('test', 0);
      let result: unknown;
      expect(() => {
        result = h.getTask(CallContext.of('a', ANONYMOUS, { usage }), req);
      }).not.toThrow();
      await expect(result).rejects.toBeInstanceOf(A2AError);
      expect(usage.error).toBe(true);
      expect(usage.outcome).toBe(reason);
      expect(inner.seen).toHaveLength(0);
    }
  });

  it('passes agentExtensions and hasAgent on unchanged when no stage takes part', () => {
    const h = compose([tagging()], recordingInner());
    expect(h.agentExtensions('x')).toEqual({ supported: ['x'], required: [] });
    expect(h.hasAgent('known')).toBe(true);
    expect(h.hasAgent('other')).toBe(false);
  });
});
