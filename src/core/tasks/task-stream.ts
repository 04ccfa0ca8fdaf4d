/**
 * One open stream of a task's committed events (SendStreamingMessage's or SubscribeToTask's): the
 * one object that holds its state, is pushed the task's events by the bus and, for a send, observes
 * the run. Ten thousand idle streams are ten thousand of these, not a chain of closures each.
 */
import type { EventBus } from '../../bus/event-bus.js';
import { isInterrupted, isTerminal, type Message, type Task } from '../../protocol/a2a/types.js';
import type { TaskEventRecord } from '../../store/store.js';
import type { StreamItem } from '../a2a-handler.js';
import type { RunObserver } from '../execution/run-observer.js';
import { AsyncQueue } from '../streams/async-queue.js';
import type { OpenStreams, StreamKind } from './open-streams.js';
import { endsStream, isStreamEvent, stateOf } from '../task-state/stream-events.js';
import type { TaskDirectory } from '../task-state/task-directory.js';

export class TaskStream extends AsyncQueue<StreamItem> implements RunObserver {
  private unsubscribe?: (() => void) | undefined;
  /** while a resume replays the log: live events wait here */
  private held?: TaskEventRecord[] | undefined;

  /**
   * `lastSeq`: events up to it are not streamed. A subscription moves it along with each event (so
   * one seen twice, from the log and live, streams once); a send's stream compares with its start.
   */
  constructor(
    readonly taskId: string,
    readonly kind: StreamKind,
    private lastSeq: number,
    private readonly streams: OpenStreams,
    private readonly dir: TaskDirectory,
  ) {
    super();
    streams.add(this);
  }

  /** Subscribes to the task's events after `afterSeq` (a catch-up from the log when given). */
  listen(bus: EventBus, afterSeq: number | undefined): void {
    const off = bus.subscribe(this.taskId, (rec) => this.onRecord(rec), afterSeq === undefined ? {} : { afterSeq });
    if (this.isOver) off();
    else this.unsubscribe = off;
  }

  /** Live events wait until `replayed` (a resume reads the log first). */
  holdLive(): void {
    this.held = [];
  }

  /** One event read from the log during a resume. */
  replay(rec: TaskEventRecord): void {
    this.deliver(rec);
  }

  /** The resume has read the log: the live events that waited follow. */
  replayed(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const rec of held) this.deliver(rec);
  }

  /** Opens the stream with the task as it stands at `seq`. */
  open(task: Task, seq: number): void {
    this.push({ seq, response: { task: this.dir.viewFull(task) } });
    if (this.kind === 'subscription') this.lastSeq = seq;
  }

  /** the seq of the last event streamed (or skipped as already known) */
  get seenSeq(): number {
    return this.lastSeq;
  }

  private onRecord(rec: TaskEventRecord): void {
    if (this.held) this.held.push(rec);
    else this.deliver(rec);
  }

  private deliver(rec: TaskEventRecord): void {
    if (rec.seq <= this.lastSeq) return;
    if (this.kind === 'subscription') this.lastSeq = rec.seq;
    if (!isStreamEvent(rec.event)) return;
    this.push({ seq: rec.seq, response: rec.event });
    if (endsStream(stateOf(rec.event))) this.end();
  }

  // ---------------------------------------------------------------- the run (a send's stream)

  onDuplicate(task: Task): void {
    this.push({ response: { task: this.dir.viewFull(task) } });
    this.end();
  }

  onMessage(m: Message): void {
    this.push({ response: { message: m } });
    this.end();
  }

  onCommitted(): void {}

  onEnd(err?: Error, task?: Task): void {
    if (err) {
      this.end(err);
      return;
    }
    // Nothing more will happen on this task until a new message arrives.
    if (task && (isTerminal(task.status.state) || isInterrupted(task.status.state))) this.end();
  }

  protected override closed(): void {
    const off = this.unsubscribe;
    this.unsubscribe = undefined;
    off?.();
    this.streams.delete(this);
  }
}
