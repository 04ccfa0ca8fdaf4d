/**
 * The live fan-out seam. Events are published only after they are committed to the store, so a
 * subscriber that misses something can always fill the gap from the event log by seq.
 */
import type { TaskEventRecord } from '../store/store.js';

export type TaskEventListener = (record: TaskEventRecord) => void;

/** Control signals that must reach whichever process runs a task's executor. */
export type TaskControl = { type: 'cancel'; taskId: string };
export type TaskControlListener = (signal: TaskControl) => void;

export interface EventBus {
  publish(records: TaskEventRecord[]): void;
  subscribe(taskId: string, listener: TaskEventListener): () => void;
  publishControl(signal: TaskControl): void;
  onControl(listener: TaskControlListener): () => void;
  close(): Promise<void>;
}
