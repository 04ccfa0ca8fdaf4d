/** The streams open in this process: a cap per task, and all of them ended at shutdown. */
import { A2AError } from '../../protocol/a2a/errors.js';

/** SendStreamingMessage's stream, or SubscribeToTask's */
export type StreamKind = 'stream' | 'subscription';

/** What is kept of an open stream here (core/tasks/task-stream.ts). */
export interface OpenStream {
  readonly taskId: string;
  readonly kind: StreamKind;
  end(): void;
}

export class OpenStreams {
  private readonly perTask = new Map<string, number>();
  private readonly open = new Set<OpenStream>();

  constructor(private readonly maxPerTask: number) {}

  /** Counts a stream against its task's cap (refused past it) and keeps it until `close`. */
  add(stream: OpenStream): void {
    const n = this.perTask.get(stream.taskId) ?? 0;
    if (n >= this.maxPerTask) {
      throw new A2AError('TooManyStreams', `Task ${stream.taskId} already has ${n} open streams; close one or poll with GetTask`);
    }
    this.perTask.set(stream.taskId, n + 1);
    this.open.add(stream);
  }

  /** Releases a stream `add` counted; a second call is a no-op. */
  delete(stream: OpenStream): void {
    if (!this.open.delete(stream)) return;
    const left = (this.perTask.get(stream.taskId) ?? 1) - 1;
    if (left <= 0) this.perTask.delete(stream.taskId);
    else this.perTask.set(stream.taskId, left);
  }

  /** open streams by kind (the metrics gauge, read at scrape time) */
  count(): Record<StreamKind, number> {
    const n = { stream: 0, subscription: 0 };
    for (const s of this.open) n[s.kind]++;
    return n;
  }

  /** Shutdown: every open stream ends. */
  endAll(): void {
    for (const s of [...this.open]) s.end();
  }
}
