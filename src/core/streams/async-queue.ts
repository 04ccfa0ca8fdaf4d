/**
 * A push-to-pull bridge: producers `push`, one consumer iterates. Used for every stream so that a
 * slow consumer buffers without blocking the task, and `return()` from the consumer (a client that
 * went away) detaches it cleanly.
 */
export class AsyncQueue<T> implements AsyncIterableIterator<T> {
  private items: T[] = [];
  private head = 0;
  private waiter?: { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void };
  private done = false;
  private failure?: unknown;
  private onClose?: () => void;

  constructor(onClose?: () => void) {
    this.onClose = onClose;
  }

  push(item: T): void {
    if (this.done) return;
    if (this.waiter) {
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
    if (this.waiter && this.head >= this.items.length) {
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

  return(): Promise<IteratorResult<T>> {
    this.done = true;
    this.items = [];
    this.head = 0;
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

  private close(): void {
    const cb = this.onClose;
    this.onClose = undefined;
    cb?.();
  }
}
