import type { StreamItem } from '../a2a-handler.js';

/**
 * An AsyncIterable whose set-up runs on the first `next()`, so set-up errors surface there (the
 * bindings peek the first item before committing to a streaming response).
 */
export function lazyStream(setup: () => Promise<AsyncIterator<StreamItem>>): AsyncIterable<StreamItem> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<StreamItem> {
      let inner: AsyncIterator<StreamItem> | undefined;
      let starting: Promise<AsyncIterator<StreamItem>> | undefined;
      let returned = false;
      return {
        async next() {
          if (returned) return { value: undefined, done: true };
          inner ??= await (starting ??= setup());
          if (returned) {
            await inner.return?.();
            return { value: undefined, done: true };
          }
          return inner.next();
        },
        async return() {
          returned = true;
          await inner?.return?.();
          return { value: undefined, done: true };
        },
      };
    },
  };
}
