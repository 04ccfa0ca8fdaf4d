/**
 * transport/response-close.ts: the client leaving before its answer was written reaches a plain
 * tool call's listener and, when the SDK path asked for one, a real AbortSignal; an answer written
 * in full aborts nothing.
 */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ResponseClose } from '../../../../src/bindings/mcp/transport/response-close.js';

/** A response that closes, its answer written (`finished`) or not. */
function response(): { res: ServerResponse; close(finished: boolean): void } {
  const e = new EventEmitter() as EventEmitter & { writableFinished: boolean };
  e.writableFinished = false;
  return {
    res: e as unknown as ServerResponse,
    close: (finished) => {
      e.writableFinished = finished;
      e.emit('close');
    },
  };
}

describe('ResponseClose', () => {
  it('a close before the answer was written calls each listener once and aborts the signal', () => {
    const r = response();
    const close = new ResponseClose(r.res);
    const signal = close.signal;
    const calls: string[] = [];
    close.addEventListener('abort', () => calls.push('a'));
    close.addEventListener('abort', () => calls.push('b'));
    expect(close.aborted).toBe(false);
    r.close(false);
    expect(close.aborted).toBe(true);
    expect(signal.aborted).toBe(true);
    expect(calls).toEqual(['a', 'b']);
  });

  it('a close after the answer was written aborts nothing', () => {
    const r = response();
    const close = new ResponseClose(r.res);
    let called = false;
    close.addEventListener('abort', () => (called = true));
    r.close(true);
    expect(close.aborted).toBe(false);
    expect(close.signal.aborted).toBe(false);
    expect(called).toBe(false);
  });

  it('a removed listener is not called; a signal asked for after the close is already aborted', () => {
    const r = response();
    const close = new ResponseClose(r.res);
    let called = false;
    const fn = () => (called = true);
    close.addEventListener('abort', fn);
    close.removeEventListener('abort', fn);
    r.close(false);
    expect(called).toBe(false);
    expect(close.signal.aborted).toBe(true);
  });
});
