import { describe, expect, it } from 'vitest';
import { lazyTransport } from '../../src/client/lazy-transport.js';
import type { StreamEvent, Transport } from '../../src/client/transport.js';
import type { SendMessageResponse, Task } from '../../src/protocol/a2a/types.js';

const task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } } as Task;

/** A stand-in adapter that records its calls and whether it was closed. */
function fakeTransport() {
  const calls: string[] = [];
  let closed = 0;
  const events: StreamEvent[] = [{ response: { task } }, { response: { task }, id: '2' }];
  const t = {
    binding: 'GRPC',
    protocolVersion: '1.0',
    url: 'real:1',
    sendMessage: async () => (calls.push('sendMessage'), { task } as SendMessageResponse),
    getTask: async () => (calls.push('getTask'), task),
    async *subscribeToTask() {
      calls.push('subscribeToTask');
      yield* events;
    },
    close: () => void closed++,
  } as unknown as Transport;
  return { t, calls, events, closes: () => closed };
}

describe('lazyTransport', () => {
  it('opens nothing until the first call, and the real transport once for every call after', async () => {
    const fake = fakeTransport();
    let opens = 0;
    const lazy = lazyTransport('GRPC', '1.0', 'localhost:1', async () => (opens++, fake.t));
    expect([lazy.binding, lazy.protocolVersion, lazy.url, opens]).toEqual(['GRPC', '1.0', 'localhost:1', 0]);
    const [sent, got] = await Promise.all([lazy.sendMessage({ message: { messageId: 'm', role: 'ROLE_USER', parts: [] } }), lazy.getTask({ id: 't1' })]);
    expect(sent).toEqual({ task });
    expect(got).toBe(task);
    await lazy.getTask({ id: 't1' });
    expect(opens).toBe(1);
    expect(fake.calls).toEqual(['sendMessage', 'getTask', 'getTask']);
  });

  it("passes a stream's events through in order", async () => {
    const fake = fakeTransport();
    const lazy = lazyTransport('GRPC', '1.0', 'localhost:1', async () => fake.t);
    const seen: StreamEvent[] = [];
    for await (const ev of lazy.subscribeToTask({ id: 't1' })) seen.push(ev);
    expect(seen).toEqual(fake.events);
  });

  it('close before any call opens nothing; close after a call closes the real transport', async () => {
    let opens = 0;
    const unused = lazyTransport('GRPC', '1.0', 'localhost:1', async () => (opens++, fakeTransport().t));
    unused.close();
    await new Promise((r) => setTimeout(r, 10));
    expect(opens).toBe(0);

    const fake = fakeTransport();
    const used = lazyTransport('GRPC', '1.0', 'localhost:1', async () => fake.t);
    await used.getTask({ id: 't1' });
    used.close();
    await new Promise((r) => setTimeout(r, 10));
    expect(fake.closes()).toBe(1);
  });

  it('close while the module is still loading closes the transport it then makes', async () => {
    const fake = fakeTransport();
    let release!: () => void;
    const loading = new Promise<void>((r) => (release = r));
    const lazy = lazyTransport('GRPC', '1.0', 'localhost:1', async () => (await loading, fake.t));
    const call = lazy.getTask({ id: 't1' });
    lazy.close();
    release();
    await call;
    await new Promise((r) => setTimeout(r, 10));
    expect(fake.closes()).toBe(1);
  });

  it('a failed load fails the call with its error, and close after it throws nothing', async () => {
    const lazy = lazyTransport('GRPC', '1.0', 'localhost:1', async () => {
      throw new Error('no module');
    });
    await expect(lazy.getTask({ id: 't1' })).rejects.toThrow('no module');
    expect(() => lazy.close()).not.toThrow();
    await new Promise((r) => setTimeout(r, 10));
  });
});
