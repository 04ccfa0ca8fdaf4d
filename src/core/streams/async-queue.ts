import type { PushableIterator, StreamSink } from './stream-sink.js';

/**
 * A push-to-pull bridge: producers `push`, one consumer iterates. Used for every stream so that a
 * slow consumer buffers without blocking the task, and `return()` from the consumer (a client that
 * went away) detaches it cleanly. A consumer may instead `attach` a sink: the buffered items, then
 * every later one, are handed to it as they are pushed (no promise per item or per idle stream).
 */
export class AsyncQueue<T> implements AsyncIterableIterator<T>, PushableIterator<T> {
  private items: T[] = [];
  private head = 0;
  private waiter?: { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void } | undefined;
  private sink?: StreamSink<T> | undefined;
  private done = false;
  private failure?: unknown;
  private onClose?: (() => void) | undefined;
  private isClosed = false;

  constructor(onClose?: () => void) {
    this.onClose = onClose;
  }

  push(item: T): void {
    if (this.done) return;
    if (this.sink) {
      this.sink.item(item);
    } else if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w.resolve({ value: item, done: false });
    } else {
      this.items.push(item);
    }
  }

  /** Ends the stream after the buffered items (or with an error). */
  end(error?: unknown): void {
    if (this.done) return;
    this.done = true;
    this.failure = error;
    if (this.sink) {
      const s = this.sink;
      this.sink = undefined;
      this.failure = undefined;
      s.end(error);
    } else if (this.waiter && this.head >= this.items.length) {
      const w = this.waiter;
      this.waiter = undefined;
      if (error !== undefined) w.reject(error);
      else w.resolve({ value: undefined, done: true });
    }
    this.close();
  }

  next(): Promise<IteratorResult<T>> {
    if (this.head < this.items.length) {
      // head < length: the slot holds a pushed item.
      const value = this.items[this.head++] as T;
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.done) {
      if (this.failure !== undefined) {
        const f = this.failure;
        this.failure = undefined;
        return Promise.reject(f);
      }
      return Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  /**
   * Push mode (no `next()` may be pending): the buffered items go to `sink` now, then each pushed
   * one as it comes, then the end. Always accepted.
   */
  attach(sink: StreamSink<T>): this {
    const buffered = this.items;
    const from = this.head;
    this.items = [];
    this.head = 0;
    for (let i = from; i < buffered.length; i++) sink.item(buffered[i] as T);
    if (this.done) {
      const f = this.failure;
      this.failure = undefined;
      sink.end(f);
    } else {
      this.sink = sink;
    }
    return this;
  }

  return(): Promise<IteratorResult<T>> {
    this.done = true;
    this.items = [];
    this.head = 0;
    this.sink = undefined;
    this.close();
    if (this.waiter) {
      this.waiter.resolve({ value: undefined, done: true });
      this.waiter = undefined;
    }
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** whether the stream has ended or its consumer left (what `closed` releases is released) */
  protected get isOver(): boolean {
    return this.isClosed;
  }

  /** Runs once, when the stream ends or its consumer leaves; subclasses release what they hold. */
  protected closed(): void {}

  private close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    const cb = this.onClose;
    this.onClose = undefined;
    cb?.();
    this.closed();
  }
}
