import { describe, expect, it } from 'vitest';
import { A2AError } from '../../../src/protocol/a2a/errors.js';
import { OpenStreams, type OpenStream, type StreamKind } from '../../../src/core/tasks/open-streams.js';

/** A stream that only says whether it was ended. */
function stream(taskId: string, kind: StreamKind = 'stream'): OpenStream & { ended: number } {
  return {
    taskId,
    kind,
    ended: 0,
    end() {
      this.ended++;
    },
  };
}

describe('OpenStreams', () => {
  it('caps the streams of one task, and a released stream frees its place', () => {
    const open = new OpenStreams(2);
    const a = stream('t1');
    const b = stream('t1', 'subscription');
    open.add(a);
    open.add(b);
    open.add(stream('t2'));
    let refused: unknown;
    try {
      open.add(stream('t1'));
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(A2AError);
    expect((refused as A2AError).kind).toBe('TooManyStreams');
    expect((refused as A2AError).message).toBe('Task t1 already has 2 open streams; close one or poll with GetTask');
    open.delete(a);
    open.add(stream('t1'));
    expect(open.count()).toEqual({ stream: 2, subscription: 1 });
  });

  it('releases each stream once: a second delete, or one of a stream never added, changes nothing', () => {
    const open = new OpenStreams(1);
    const a = stream('t1');
    open.add(a);
    open.delete(a);
    open.delete(a);
    open.delete(stream('t1'));
    expect(open.count()).toEqual({ stream: 0, subscription: 0 });
    open.add(stream('t1'));
    expect(open.count()).toEqual({ stream: 1, subscription: 0 });
  });

  it('ends every open stream at shutdown, each once', () => {
    const open = new OpenStreams(4);
    const streams = [stream('t1'), stream('t1', 'subscription'), stream('t2'), stream('t3', 'subscription')];
    for (const s of streams) open.add(s);
    // As a TaskStream does: ending it releases it.
    for (const s of streams) {
      const end = s.end.bind(s);
      s.end = () => {
        end();
        open.delete(s);
      };
    }
    open.endAll();
    expect(streams.map((s) => s.ended)).toEqual([1, 1, 1, 1]);
    expect(open.count()).toEqual({ stream: 0, subscription: 0 });
  });
});
