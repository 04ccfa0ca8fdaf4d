/** The streams open in this process: a cap per task, and all of them ended at shutdown. */
import { A2AError } from '../../protocol/a2a/errors.js';
import type { StreamItem } from '../a2a-handler.js';
import type { AsyncQueue } from '../streams/async-queue.js';

/** SendStreamingMessage's stream, or SubscribeToTask's */
export type StreamKind = 'stream' | 'subscription';

export class OpenStreams {
  private readonly perTask = new Map<string, number>();
  private readonly queues = new Map<AsyncQueue<StreamItem>, StreamKind>();

  constructor(private readonly maxPerTask: number) {}

  /** Counts a stream against the per-task cap; the returned function releases it (once). */
  admit(taskId: string): () => void {
    const n = this.perTask.get(taskId) ?? 0;
    if (n >= this.maxPerTask) {
      throw new A2AError('TooManyStreams', `Task ${taskId} already has ${n} open streams; close one or poll with GetTask`);
    }
    this.perTask.set(taskId, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.perTask.get(taskId) ?? 1) - 1;
      if (left <= 0) this.perTask.delete(taskId);
      else this.perTask.set(taskId, left);
    };
  }

  add(queue: AsyncQueue<StreamItem>, kind: StreamKind): void {
    this.queues.set(queue, kind);
  }

  /** open streams by kind (the metrics gauge, read at scrape time) */
  count(): Record<StreamKind, number> {
    const n = { stream: 0, subscription: 0 };
    for (const kind of this.queues.values()) n[kind]++;
    return n;
  }

  delete(queue: AsyncQueue<StreamItem>): void {
    this.queues.delete(queue);
  }

  /** Shutdown: every open stream ends. */
  endAll(): void {
    for (const q of [...this.queues.keys()]) q.end();
  }
}
