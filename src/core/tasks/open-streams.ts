/**
 * The streams open in this process: a cap per task, and all of them ended at shutdown.
 *
 * Every SendStreamingMessage (each MCP tool call among them) opens one and closes it when its task
 * settles, so entries come and go at the request rate: a TransientMap of a task's one stream (an
 * array when it has several), not a Map of counts beside a Set of streams, whose replaced tables
 * would keep closed streams, and the calls they served, alive through young collections (ADR 0047).
 */
import { A2AError } from '../../protocol/a2a/errors.js';
import { TransientMap } from '../../memory/transient-map.js';

/** SendStreamingMessage's stream, or SubscribeToTask's */
export type StreamKind = 'stream' | 'subscription';

/** What is kept of an open stream here (core/tasks/task-stream.ts). */
export interface OpenStream {
  readonly taskId: string;
  readonly kind: StreamKind;
  end(): void;
}

export class OpenStreams {
  private readonly byTask = new TransientMap<OpenStream | OpenStream[]>();

  constructor(private readonly maxPerTask: number) {}

  /** Counts a stream against its task's cap (refused past it) and keeps it until `close`. */
  add(stream: OpenStream): void {
    const held = this.byTask.get(stream.taskId);
    const n = held === undefined ? 0 : Array.isArray(held) ? held.length : 1;
    if (n >= this.maxPerTask) {
      throw new A2AError('TooManyStreams', `Task ${stream.taskId} already has ${n} open streams; close one or poll with GetTask`);
    }
    if (held === undefined) this.byTask.set(stream.taskId, stream);
    else if (Array.isArray(held)) held.push(stream);
    else this.byTask.set(stream.taskId, [held, stream]);
  }

  /** Releases a stream `add` counted; a second call is a no-op. */
  delete(stream: OpenStream): void {
    const held = this.byTask.get(stream.taskId);
    if (held === stream) {
      this.byTask.delete(stream.taskId);
      return;
    }
    if (!Array.isArray(held)) return;
    const i = held.indexOf(stream);
    if (i < 0) return;
    held.splice(i, 1);
    if (held.length === 0) this.byTask.delete(stream.taskId);
  }

  /** open streams by kind (the metrics gauge, read at scrape time) */
  count(): Record<StreamKind, number> {
    const n = { stream: 0, subscription: 0 };
    for (const s of this.all()) n[s.kind]++;
    return n;
  }

  /** Shutdown: every open stream ends. */
  endAll(): void {
    for (const s of this.all()) s.end();
  }

  /** Every open stream, gathered first (ending one deletes it). */
  private all(): OpenStream[] {
    const out: OpenStream[] = [];
    for (const held of this.byTask.values()) {
      if (Array.isArray(held)) out.push(...held);
      else out.push(held);
    }
    return out;
  }
}
