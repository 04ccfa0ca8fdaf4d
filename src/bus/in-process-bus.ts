/**
 * The single-process event bus: delivery is a synchronous call into each listener, in publish
 * order. A listener that throws is reported and skipped; it never stops delivery to the others
 * nor reaches the publisher (who has already committed and must not fail for a reader's bug).
 */
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

export class InProcessEventBus implements EventBus {
  /** only tasks with at least one listener have an entry, so finished tasks leave nothing behind */
  private readonly listeners = new Map<string, Set<TaskEventListener>>();
  private readonly controlListeners = new Set<TaskControlListener>();
  private readonly onListenerError: (err: unknown) => void;
  private closed = false;

  constructor(opts: InProcessEventBusOptions = {}) {
    this.onListenerError = opts.onListenerError ?? warn;
  }

  publish(records: TaskEventRecord[]): void {
    for (const record of records) {
      const set = this.listeners.get(record.taskId);
      if (!set) continue;
      // A snapshot: listeners added or removed by a listener take effect from the next record.
      // (The common single-listener case skips the copy.)
      if (set.size === 1) this.deliver(set.values().next().value as TaskEventListener, record);
      else for (const l of Array.from(set)) this.deliver(l, record);
    }
  }

  subscribe(taskId: string, listener: TaskEventListener): () => void {
    if (this.closed) return () => {};
    let set = this.listeners.get(taskId);
    if (!set) {
      set = new Set();
      this.listeners.set(taskId, set);
    }
    // Wrapped so the same function subscribed twice gets two independent subscriptions.
    const entry: TaskEventListener = (r) => listener(r);
    set.add(entry);
    const owned = set;
    return () => {
      if (!owned.delete(entry)) return;
      if (owned.size === 0 && this.listeners.get(taskId) === owned) this.listeners.delete(taskId);
    };
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
