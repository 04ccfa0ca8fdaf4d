/**
 * One replica's view of a bus shared in process: its control signals carry `from` (as the Redis
 * bus stamps them), and the control signals coming to it can be held back, as a slow or loaded
 * network holds them, then let through in order. Task events pass as they are.
 */
import type { EventBus, TaskControl, TaskControlListener, TaskEventListener } from '../../../src/bus/event-bus.js';
import type { InProcessEventBus } from '../../../src/bus/in-process-bus.js';
import type { TaskEventRecord } from '../../../src/store/task-event-record.js';

export class ReplicaBus implements EventBus {
  private holding = false;
  private readonly held: Array<() => void> = [];

  constructor(
    private readonly shared: InProcessEventBus,
    private readonly replicaId: string,
  ) {}

  /** control signals for this replica wait from now on until `release()` */
  hold(): void {
    this.holding = true;
  }

  /** hands the held control signals over, oldest first, and stops holding */
  release(): void {
    this.holding = false;
    for (const deliver of this.held.splice(0)) deliver();
  }

  /** how many control signals wait */
  get heldCount(): number {
    return this.held.length;
  }

  publish(records: TaskEventRecord[]): void {
    this.shared.publish(records);
  }

  // The in-process bus cannot lose records, so it takes no afterSeq (SubscribeOptions).
  subscribe(taskId: string, listener: TaskEventListener): () => void {
    return this.shared.subscribe(taskId, listener);
  }

  publishControl(signal: TaskControl): void {
    this.shared.publishControl({ ...signal, from: this.replicaId });
  }

  onControl(listener: TaskControlListener): () => void {
    return this.shared.onControl((signal) => {
      if (this.holding) this.held.push(() => listener(signal));
      else listener(signal);
    });
  }

  health(): ReturnType<EventBus['health']> {
    return this.shared.health();
  }

  async close(): Promise<void> {}
}
