import type { PushableIterator, StreamSink } from './stream-sink.js';

const DONE: IteratorResult<never> = Object.freeze({ value: undefined, done: true });

/**
 * An AsyncIterable whose set-up runs on the first `next()`, so set-up errors surface there (the
 * bindings peek the first item before committing to a streaming response). One object is both the
 * iterable and its (single) iterator; once set up it forgets the set-up (and the call it closed
 * over) and passes `next()` and `attach` straight to the stream below, adding no promise of its own.
 */
export function lazyStream<T>(setup: () => Promise<AsyncIterator<T>>): AsyncIterable<T> {
  return new LazyStream(setup);
}

class LazyStream<T> implements AsyncIterable<T>, PushableIterator<T> {
  private inner?: PushableIterator<T> | undefined;
  private starting?: Promise<AsyncIterator<T>> | undefined;
  private returned = false;

  constructor(private setup: (() => Promise<AsyncIterator<T>>) | undefined) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.returned) return Promise.resolve(DONE);
    if (this.inner) return this.inner.next();
    return this.start();
  }

  attach(sink: StreamSink<T>): PushableIterator<T> | undefined {
    return this.returned ? undefined : this.inner?.attach?.(sink);
  }

  async return(): Promise<IteratorResult<T>> {
    this.returned = true;
    await this.inner?.return?.();
    return DONE;
  }

  private async start(): Promise<IteratorResult<T>> {
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
