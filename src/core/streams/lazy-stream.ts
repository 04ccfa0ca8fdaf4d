import type { StreamItem } from '../a2a-handler.js';
import type { PushableIterator, StreamSink } from './stream-sink.js';

const DONE: IteratorResult<StreamItem> = Object.freeze({ value: undefined, done: true });

/**
 * An AsyncIterable whose set-up runs on the first `next()`, so set-up errors surface there (the
 * bindings peek the first item before committing to a streaming response). One object is both the
 * iterable and its (single) iterator; once set up it forgets the set-up (and the call it closed
 * over) and passes `next()` and `attach` straight to the stream below, adding no promise of its own.
 */
export function lazyStream(setup: () => Promise<AsyncIterator<StreamItem>>): AsyncIterable<StreamItem> {
  return new LazyStream(setup);
}

class LazyStream implements AsyncIterable<StreamItem>, PushableIterator<StreamItem> {
  private inner?: PushableIterator<StreamItem> | undefined;
  private starting?: Promise<AsyncIterator<StreamItem>> | undefined;
  private returned = false;

  constructor(private setup: (() => Promise<AsyncIterator<StreamItem>>) | undefined) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<StreamItem>> {
    if (this.returned) return Promise.resolve(DONE);
    if (this.inner) return this.inner.next();
    return this.start();
  }

  attach(sink: StreamSink<StreamItem>): PushableIterator<StreamItem> | undefined {
    return this.returned ? undefined : this.inner?.attach?.(sink);
  }

  async return(): Promise<IteratorResult<StreamItem>> {
    this.returned = true;
    await this.inner?.return?.();
    return DONE;
  }

  private async start(): Promise<IteratorResult<StreamItem>> {
    // A second next() while the first sets up waits for the same set-up.
    this.starting ??= this.setup!();
    this.setup = undefined;
    const inner = await this.starting;
    this.inner = inner;
    this.starting = undefined;
    if (this.returned) {
      await inner.return?.();
      return DONE;
    }
    return inner.next();
  }
}
