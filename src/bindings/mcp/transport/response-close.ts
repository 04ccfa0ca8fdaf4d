/**
 * The client leaving before its answer was written (the response closed unfinished), told two
 * ways: as the slice of an `AbortSignal` a plain tool call reads (`aborted`, one `abort` listener),
 * kept on this object, and as a real `AbortSignal` for the SDK path's web `Request`, made only
 * when asked for. A plain `tools/call` never asks, so it builds no AbortController: Node's
 * AbortSignal is an EventTarget, among the costlier objects of a call (docs/benchmarks.md, MCP).
 */
import type { ServerResponse } from 'node:http';

type Listener = () => void;

export class ResponseClose {
  private gone = false;
  private listeners: Listener[] | undefined;
  private controller: AbortController | undefined;

  constructor(res: ServerResponse) {
    res.once('close', () => {
      if (!res.writableFinished) this.abort();
    });
  }

  /** true once the client went away with the answer unwritten */
  get aborted(): boolean {
    return this.gone;
  }

  /** `AbortSignal.addEventListener('abort', fn, {once: true})`, which is how callers use it. */
  addEventListener(_type: 'abort', fn: Listener): void {
    if (this.gone) return;
    (this.listeners ??= []).push(fn);
  }

  removeEventListener(_type: 'abort', fn: Listener): void {
    const i = this.listeners?.indexOf(fn) ?? -1;
    if (i >= 0) this.listeners!.splice(i, 1);
  }

  /** A real AbortSignal that aborts with this one (made on the first read). */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.gone) this.controller.abort();
    }
    return this.controller.signal;
  }

  private abort(): void {
    if (this.gone) return;
    this.gone = true;
    const listeners = this.listeners ?? [];
    this.listeners = undefined;
    for (const fn of listeners) fn();
    this.controller?.abort();
  }
}
