/**
 * Push mode of a stream: a writer (an SSE response) attaches itself once it has read the first item,
 * and the stream hands it every later item as it happens. An open stream is then one object the
 * task's events are pushed into, instead of a pending `next()` promise chained through every layer
 * between the binding and the task (thousands of idle streams each held one: docs/benchmarks.md,
 * "Leaner stream path").
 */
export interface StreamSink<T> {
  item(item: T): void;
  /** the stream is over, normally or with `error` */
  end(error?: unknown): void;
}

/**
 * An iterator that may also push. `attach` answers the iterator that now feeds the sink (the one
 * to `return()` when the consumer leaves: layers above it that only passed it through are done
 * with), or undefined when it (or a layer below) cannot push.
 */
export interface PushableIterator<T> extends AsyncIterator<T> {
  attach?(sink: StreamSink<T>): PushableIterator<T> | undefined;
}
