/**
 * The quota stage of the call pipeline (src/core/stages/quota-handler.ts), in process, with a gate
 * that records what it is asked and a task service that answers as scripted: which calls are
 * admitted and with which dimensions, and when a concurrent-task slot is given back — at once for
 * a task already at rest, after a watch (SubscribeToTask) for one still running, on failure, and
 * when a stream ends or its client leaves. Each slot is released exactly once.
 */
import { describe, expect, it } from 'vitest';
import { type A2AHandler, CallContext, type CallFields, type StreamItem } from '../../../src/core/a2a-handler.js';
import type { Principal } from '../../../src/core/authz/principal.js';
import { compose } from '../../../src/core/pipeline.js';
import type { QuotaCall, QuotaGate, TaskSlot } from '../../../src/core/quotas/quota-engine.js';
import { quotaStage } from '../../../src/core/stages/quota-handler.js';
import type { StreamResponse, Task, TaskState } from '../../../src/protocol/a2a/types.js';

class RecordingGate implements QuotaGate {
  idle = false;
  calls: QuotaCall[] = [];
  released = 0;
  refuse = false;
  noSlot = false;
  async admit(call: QuotaCall): Promise<TaskSlot | undefined> {
    this.calls.push(call);
    if (this.refuse) throw new Error('quota exceeded');
    if (this.noSlot || !call.sends) return undefined;
    return { release: () => void this.released++ };
  }
}

const task = (state: TaskState, id = 't1'): Task => ({ id, contextId: 'c1', status: { state } }) as Task;
const item = (response: StreamResponse): StreamItem => ({ response });

/** A task service whose sendMessage and streams answer as set, and whose SubscribeToTask the test feeds. */
function service() {
  const s = {
    send: (): Promise<unknown> => Promise.resolve({ task: task('TASK_STATE_COMPLETED') }),
    stream: [] as StreamItem[],
    streamFails: false,
    ran: 0,
    subscribed: [] as Array<{ ctx: CallContext; id: string }>,
    subscribeFails: false,
    feed: undefined as ((r: StreamItem | undefined) => void) | undefined,
  };
  const handler = {
    sendMessage: () => {
      s.ran++;
      return s.send();
    },
    getTask: async () => {
      s.ran++;
      return task('TASK_STATE_COMPLETED');
    },
    sendStreamingMessage: async function* () {
      s.ran++;
      for (const i of s.stream) yield i;
      if (s.streamFails) throw new Error('agent failed');
    },
    subscribeToTask: (ctx: CallContext, req: { id: string }) => {
      s.subscribed.push({ ctx, id: req.id });
      return {
        [Symbol.asyncIterator]: () => ({
          next: () => {
            if (s.subscribeFails) return Promise.reject(new Error('task is terminal'));
            return new Promise<IteratorResult<StreamItem>>((resolve) => {
              s.feed = (r) => resolve(r ? { value: r, done: false } : { value: undefined, done: true });
            });
          },
          return: async () => ({ value: undefined, done: true as const }),
        }),
      };
    },
    hasAgent: () => true,
    agentExtensions: () => undefined,
  } as unknown as A2AHandler;
  return { s, handler };
}

const principal: Principal = { subject: 'alice', authenticated: true, clientId: 'app', keyId: 'k1', usecase: 'hr', scopes: ['a2a:publish'] };
/** A call's context; `skill` as the resolve stage would have put it there. */
const ctx = (more: CallFields & { principal?: Principal; skill?: string } = {}): CallContext => {
  const c = CallContext.of('llm', more.principal ?? principal, more, ['x']);
  if (more.skill !== undefined) c.resolved(undefined, undefined, more.skill);
  return c;
};
const send = { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } } as never;
const turn = () => new Promise((r) => setImmediate(r));

function setup() {
  const gate = new RecordingGate();
  const { s, handler } = service();
  return { gate, s, pipeline: compose([quotaStage(gate, handler)], handler) };
}

async function drain(it: AsyncIterable<StreamItem>): Promise<StreamItem[]> {
  const out: StreamItem[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('admission', () => {
  it('an idle gate is not asked', async () => {
    const { gate, s, pipeline } = setup();
    gate.idle = true;
    await pipeline.sendMessage(ctx(), send);
    await drain(pipeline.sendStreamingMessage(ctx(), send));
    expect(gate.calls).toEqual([]);
    expect(s.ran).toBe(2);
  });

  it('a send is admitted with every dimension of the caller, the agent and its skill, as a send', async () => {
    const { gate, pipeline } = setup();
    await pipeline.sendMessage(ctx({ skill: 'chat' }), send);
    expect(gate.calls).toEqual([{ dims: { subject: 'alice', client: 'app', key: 'k1', usecase: 'hr', agent: 'llm', skill: 'chat' }, sends: true, principal, operation: 'SendMessage' }]);
  });

  it('a caller without a client, key or usecase has none of those dimensions (not even undefined ones)', async () => {
    const { gate, pipeline } = setup();
    const plain: Principal = { subject: 'bob', authenticated: true, scopes: [] };
    await pipeline.sendMessage(ctx({ principal: plain }), send);
    expect(gate.calls[0]!.dims).toStrictEqual({ subject: 'bob', agent: 'llm' });
  });

  it('a read is admitted against request windows only, without the skill; a face’s read finishing its own call is not counted', async () => {
    const { gate, s, pipeline } = setup();
    await pipeline.getTask(ctx({ skill: 'chat' }), { id: 't1' });
    expect(gate.calls).toStrictEqual([{ dims: { subject: 'alice', client: 'app', key: 'k1', usecase: 'hr', agent: 'llm' }, sends: false, principal, operation: 'GetTask' }]);
    await pipeline.getTask(ctx({ partOfCall: true }), { id: 't1' });
    expect(gate.calls).toHaveLength(1);
    expect(s.ran).toBe(2);
  });

  it('a refused call never reaches the task service', async () => {
    const { gate, s, pipeline } = setup();
    gate.refuse = true;
    await expect(pipeline.sendMessage(ctx(), send)).rejects.toThrow('quota exceeded');
    await expect(pipeline.getTask(ctx(), { id: 't1' })).rejects.toThrow('quota exceeded');
    await expect(drain(pipeline.sendStreamingMessage(ctx(), send))).rejects.toThrow('quota exceeded');
    expect(s.ran).toBe(0);
  });

  it('a send that takes no slot runs as it is', async () => {
    const { gate, s, pipeline } = setup();
    gate.noSlot = true;
    s.send = () => Promise.resolve({ task: task('TASK_STATE_WORKING') });
    await pipeline.sendMessage(ctx(), send);
    s.stream = [item({ task: task('TASK_STATE_WORKING') })];
    expect(await drain(pipeline.sendStreamingMessage(ctx(), send))).toHaveLength(1);
    expect(s.subscribed).toEqual([]);
  });
});

describe('the concurrent-task slot of a send', () => {
  it('given back at once when the answer is a task at rest (terminal or interrupted) or a message', async () => {
    for (const answer of [
      { task: task('TASK_STATE_COMPLETED') },
      { task: task('TASK_STATE_INPUT_REQUIRED') },
      { task: task('TASK_STATE_AUTH_REQUIRED') },
      { task: task('TASK_STATE_REJECTED') },
      { message: { messageId: 'r' } },
    ]) {
      const { gate, s, pipeline } = setup();
      s.send = () => Promise.resolve(answer);
      expect(await pipeline.sendMessage(ctx(), send)).toEqual(answer);
      expect(gate.released).toBe(1);
      expect(s.subscribed).toEqual([]);
    }
  });

  it('given back when the send fails', async () => {
    const { gate, s, pipeline } = setup();
    s.send = () => Promise.reject(new Error('agent down'));
    await expect(pipeline.sendMessage(ctx(), send)).rejects.toThrow('agent down');
    expect(gate.released).toBe(1);
  });

  it('held while the task runs, watched through SubscribeToTask as the caller, given back when it settles', async () => {
    const { gate, s, pipeline } = setup();
    s.send = () => Promise.resolve({ task: task('TASK_STATE_WORKING', 't9') });
    await pipeline.sendMessage(ctx({ usecases: ['hr'], surface: 'mcp', skill: 'chat' }), send);
    expect(gate.released).toBe(0);
    expect(s.subscribed).toStrictEqual([{ ctx: CallContext.of('llm', principal, { usecases: ['hr'], surface: 'mcp' }), id: 't9' }]);
    s.feed?.(item({ statusUpdate: { taskId: 't9', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } } } as StreamResponse));
    await turn();
    expect(gate.released).toBe(0);
    s.feed?.(item({ artifactUpdate: { taskId: 't9', contextId: 'c1', artifact: { artifactId: 'a', parts: [] } } } as StreamResponse));
    await turn();
    expect(gate.released).toBe(0);
    s.feed?.(item({ statusUpdate: { taskId: 't9', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } } } as StreamResponse));
    await turn();
    expect(gate.released).toBe(1);
  });

  it('the watch copies no usecases or surface the call did not have', async () => {
    const { s, pipeline } = setup();
    s.send = () => Promise.resolve({ task: task('TASK_STATE_SUBMITTED') });
    await pipeline.sendMessage(ctx(), send);
    expect(s.subscribed[0]!.ctx).toStrictEqual(new CallContext('llm', principal));
  });

  it('given back when the watch ends or fails (the task gone, or already terminal)', async () => {
    const ended = setup();
    ended.s.send = () => Promise.resolve({ task: task('TASK_STATE_WORKING') });
    await ended.pipeline.sendMessage(ctx(), send);
    ended.s.feed?.(undefined);
    await turn();
    expect(ended.gate.released).toBe(1);
    const failed = setup();
    failed.s.subscribeFails = true;
    failed.s.send = () => Promise.resolve({ task: task('TASK_STATE_WORKING') });
    await failed.pipeline.sendMessage(ctx(), send);
    await turn();
    expect(failed.gate.released).toBe(1);
  });
});

describe('the slot of a stream', () => {
  it('given back once when the stream ends on a settled task', async () => {
    const { gate, s, pipeline } = setup();
    s.stream = [item({ task: task('TASK_STATE_SUBMITTED') }), item({ statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } } } as StreamResponse)];
    expect(await drain(pipeline.sendStreamingMessage(ctx(), send))).toHaveLength(2);
    expect(gate.released).toBe(1);
    expect(s.subscribed).toEqual([]);
    expect(gate.calls[0]!.operation).toBe('SendStreamingMessage');
  });

  it('a stream that ends while its task still runs hands the slot to a watch of that task', async () => {
    const { gate, s, pipeline } = setup();
    s.stream = [item({ task: task('TASK_STATE_SUBMITTED', 't5') }), item({ artifactUpdate: { taskId: 't5', contextId: 'c1', artifact: { artifactId: 'a', parts: [] } } } as StreamResponse)];
    await drain(pipeline.sendStreamingMessage(ctx(), send));
    expect(gate.released).toBe(0);
    expect(s.subscribed.map((x) => x.id)).toEqual(['t5']);
    s.feed?.(item({ task: task('TASK_STATE_CANCELED', 't5') }));
    await turn();
    expect(gate.released).toBe(1);
  });

  it('a stream with no task (a message) or one that fails gives the slot back', async () => {
    const message = setup();
    message.s.stream = [item({ message: { messageId: 'r' } } as StreamResponse)];
    await drain(message.pipeline.sendStreamingMessage(ctx(), send));
    expect(message.gate.released).toBe(1);
    const failing = setup();
    failing.s.stream = [];
    failing.s.streamFails = true;
    await expect(drain(failing.pipeline.sendStreamingMessage(ctx(), send))).rejects.toThrow('agent failed');
    expect(failing.gate.released).toBe(1);
  });

  it('a client leaving mid-stream: the running task is watched; the slot is given back once', async () => {
    const { gate, s, pipeline } = setup();
    s.stream = [item({ task: task('TASK_STATE_WORKING', 't7') }), item({ task: task('TASK_STATE_WORKING', 't7') })];
    const it = pipeline.sendStreamingMessage(ctx(), send)[Symbol.asyncIterator]();
    await it.next();
    await it.return?.();
    await it.return?.();
    expect(s.subscribed.map((x) => x.id)).toEqual(['t7']);
    s.feed?.(item({ task: task('TASK_STATE_FAILED', 't7') }));
    await turn();
    expect(gate.released).toBe(1);
  });

  it('a client leaving before any task: the slot is given back at once', async () => {
    const { gate, s, pipeline } = setup();
    s.stream = [item({ message: { messageId: 'r' } } as StreamResponse), item({ message: { messageId: 'r2' } } as StreamResponse)];
    const it = pipeline.sendStreamingMessage(ctx(), send)[Symbol.asyncIterator]();
    await it.next();
    await it.return?.();
    expect(gate.released).toBe(1);
    expect(s.subscribed).toEqual([]);
  });
});

describe('the stage in detail (issue 30: the survivors of mutation testing)', () => {
  it('is named quota, as docs/architecture.md lists the pipeline', () => {
    expect(quotaStage(new RecordingGate(), service().handler).name).toBe('quota');
  });

  it('the watch of a call without usecases or surface carries no such keys at all', async () => {
    const { s, pipeline } = setup();
    s.send = () => Promise.resolve({ task: task('TASK_STATE_WORKING') });
    await pipeline.sendMessage(ctx(), send);
    expect(s.subscribed[0]!.ctx).toStrictEqual(new CallContext('llm', principal));
  });

  it('a stream remembers the last state it saw: an artifact after the task completed leaves it completed', async () => {
    const { gate, s, pipeline } = setup();
    s.stream = [
      item({ statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } } } as StreamResponse),
      item({ artifactUpdate: { taskId: 't1', contextId: 'c1', artifact: { artifactId: 'a', parts: [] } } } as StreamResponse),
    ];
    expect(await drain(pipeline.sendStreamingMessage(ctx(), send))).toHaveLength(2);
    expect(gate.released).toBe(1);
    expect(s.subscribed).toEqual([]);
  });

  it('a stream whose only task item is an artifact update watches that task', async () => {
    const { gate, s, pipeline } = setup();
    s.stream = [item({ artifactUpdate: { taskId: 't6', contextId: 'c1', artifact: { artifactId: 'a', parts: [] } } } as StreamResponse)];
    await drain(pipeline.sendStreamingMessage(ctx(), send));
    expect(s.subscribed.map((x) => x.id)).toEqual(['t6']);
    expect(gate.released).toBe(0);
    s.feed?.(item({ statusUpdate: { taskId: 't6', contextId: 'c1', status: { state: 'TASK_STATE_INPUT_REQUIRED' } } } as StreamResponse));
    await turn();
    expect(gate.released).toBe(1);
  });

  it('a client leaving a stream whose iterator has no return(): closed all the same, the slot given back', async () => {
    const gate = new RecordingGate();
    const { handler } = service();
    const items = [item({ message: { messageId: 'r' } } as StreamResponse), item({ message: { messageId: 'r2' } } as StreamResponse)];
    // an AsyncIterable written by hand, as a binding may pass one: next() only
    (handler as { sendStreamingMessage: unknown }).sendStreamingMessage = () => ({
      [Symbol.asyncIterator]: () => ({ next: async () => (items.length ? { value: items.shift()!, done: false } : { value: undefined, done: true }) }),
    });
    const pipeline = compose([quotaStage(gate, handler)], handler);
    const it = pipeline.sendStreamingMessage(ctx(), send)[Symbol.asyncIterator]();
    expect((await it.next()).done).toBe(false);
    await expect(it.return!()).resolves.toEqual({ value: undefined, done: true });
    expect(gate.released).toBe(1);
  });

  it('a client leaving closes the stream below: the agent’s stream runs its clean-up', async () => {
    const gate = new RecordingGate();
    const { handler } = service();
    let cleanedUp = false;
    (handler as { sendStreamingMessage: unknown }).sendStreamingMessage = async function* () {
      try {
        yield item({ message: { messageId: 'r' } } as StreamResponse);
        yield item({ message: { messageId: 'r2' } } as StreamResponse);
      } finally {
        cleanedUp = true;
      }
    };
    const pipeline = compose([quotaStage(gate, handler)], handler);
    const it = pipeline.sendStreamingMessage(ctx(), send)[Symbol.asyncIterator]();
    await it.next();
    await it.return?.();
    expect(cleanedUp).toBe(true);
    expect(gate.released).toBe(1);
  });

  it('a watch goes on past items that name no task and past states not yet settled', async () => {
    const { gate, s, pipeline } = setup();
    s.send = () => Promise.resolve({ task: task('TASK_STATE_SUBMITTED', 't8') });
    await pipeline.sendMessage(ctx(), send);
    s.feed?.(item({ message: { messageId: 'note' } } as StreamResponse));
    await turn();
    expect(gate.released).toBe(0);
    s.feed?.(item({ task: task('TASK_STATE_WORKING', 't8') }));
    await turn();
    expect(gate.released).toBe(0);
    s.feed?.(item({ task: task('TASK_STATE_AUTH_REQUIRED', 't8') }));
    await turn();
    expect(gate.released).toBe(1);
  });
});
