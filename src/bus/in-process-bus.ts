/**
 * The single-process event bus: delivery is a synchronous call into each listener, in publish
 * order. A listener that throws is reported and skipped; it never stops delivery to the others
 * nor reaches the publisher (who has already committed and must not fail for a reader's bug).
 */
import { TransientMap } from '../memory/transient-map.js';
import type { TaskEventRecord } from '../store/task-event-record.js';
import type { BusHealth, EventBus, TaskControl, TaskControlListener, TaskEventListener } from './event-bus.js';

export interface InProcessEventBusOptions {
  /** called when a listener throws; default: a process warning */
  onListenerError?: (err: unknown) => void;
}

function warn(err: unknown): void {
  process.emitWarning(`event bus listener threw: ${err instanceof Error ? err.message : String(err)}`, {
    code: 'AGENTPORT_BUS_LISTENER',
  });
}

/**
 * One subscription: an object of its own, so the same function subscribed twice gets two
 * independent subscriptions.
 */
class Subscription {
  constructor(readonly listener: TaskEventListener) {}
}

export class InProcessEventBus implements EventBus {
  /**
   * Only tasks with at least one listener have an entry, so finished tasks leave nothing behind.
   * A task's one subscription (an open stream's usual case) is held as is, not in a set of one.
   */
  private readonly listeners = new TransientMap<Subscription | Set<Subscription>>();
  private readonly controlListeners = new Set<TaskControlListener>();
  private readonly onListenerError: (err: unknown) => void;
  private closed = false;

  constructor(opts: InProcessEventBusOptions = {}) {
    this.onListenerError = opts.onListenerError ?? warn;
  }

  publish(records: TaskEventRecord[]): void {
    for (const record of records) {
      const subs = this.listeners.get(record.taskId);
      if (!subs) continue;
      // A snapshot: listeners added or removed by a listener take effect from the next record.
      if (subs instanceof Subscription) this.deliver(subs.listener, record);
      else for (const s of Array.from(subs)) this.deliver(s.listener, record);
    }
  }

  subscribe(taskId: string, listener: TaskEventListener): () => void {
    if (this.closed) return () => {};
    const sub = new Subscription(listener);
    const subs = this.listeners.get(taskId);
    if (!subs) this.listeners.set(taskId, sub);
    else if (subs instanceof Subscription) this.listeners.set(taskId, new Set([subs, sub]));
    else subs.add(sub);
    return () => this.unsubscribe(taskId, sub);
  }

  private unsubscribe(taskId: string, sub: Subscription): void {
    const subs = this.listeners.get(taskId);
    if (subs === sub) {
      this.listeners.delete(taskId);
    } else if (subs instanceof Set && subs.delete(sub)) {
      const [only, more] = subs;
      if (more === undefined) {
        if (only === undefined) this.listeners.delete(taskId);
        else this.listeners.set(taskId, only);
      }
    }
  }

  publishControl(signal: TaskControl): void {
    for (const l of Array.from(this.controlListeners)) {
      try {
        l(signal);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }

  onControl(listener: TaskControlListener): () => void {
    if (this.closed) return () => {};
    const entry: TaskControlListener = (s) => listener(s);
    this.controlListeners.add(entry);
    return () => {
      this.controlListeners.delete(entry);
    };
  }

  async health(): Promise<BusHealth> {
    return this.closed ? { ok: false, detail: 'event bus closed' } : { ok: true };
  }

  /** Tasks with at least one subscriber (for tests and metrics). */
  get subscribedTaskCount(): number {
    return this.listeners.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    this.controlListeners.clear();
  }

  private deliver(listener: TaskEventListener, record: TaskEventRecord): void {
    try {
      listener(record);
    } catch (err) {
      this.onListenerError(err);
    }
  }
}
