/**
 * The streams open in this process: a cap per task, and all of them ended at shutdown.
 *
 * Every SendStreamingMessage (each MCP tool call among them) opens one and closes it when its task
 * settles, so entries come and go at the request rate: a TransientMultiMap of a task's streams,
 * not a Map of counts beside a Set of streams, whose replaced tables
 * would keep closed streams, and the calls they served, alive through young collections (ADR 0047).
 */
import { A2AError } from '../../protocol/a2a/errors.js';
import { TransientMultiMap } from '../../memory/transient-multi-map.js';

/** SendStreamingMessage's stream, or SubscribeToTask's */
export type StreamKind = 'stream' | 'subscription';

/** What is kept of an open stream here (core/tasks/task-stream.ts). */
export interface OpenStream {
  readonly taskId: string;
  readonly kind: StreamKind;
  end(): void;
}

export class OpenStreams {
  private readonly byTask = new TransientMultiMap<OpenStream>();

  constructor(private readonly maxPerTask: number) {}

  /** Counts a stream against its task's cap (refused past it) and keeps it until `close`. */
  add(stream: OpenStream): void {
    const n = this.byTask.count(stream.taskId);
    if (n >= this.maxPerTask) {
      throw new A2AError('TooManyStreams', `Task ${stream.taskId} already has ${n} open streams; close one or poll with GetTask`);
    }
    this.byTask.add(stream.taskId, stream);
  }

  /** Releases a stream `add` counted; a second call is a no-op. */
  delete(stream: OpenStream): void {
    this.byTask.remove(stream.taskId, stream);
  }

  /** open streams by kind (the metrics gauge, read at scrape time) */
  count(): Record<StreamKind, number> {
    const n = { stream: 0, subscription: 0 };
    for (const s of this.byTask.all()) n[s.kind]++;
    return n;
  }

  /** Shutdown: every open stream ends. */
  endAll(): void {
    for (const s of this.byTask.all()) s.end();
  }
}
