/**
 * The live fan-out seam. Events are published only after they are committed to the store, so a
 * subscriber that misses something can always fill the gap from the event log by seq.
 */
import type { JsonObject, Message } from '../protocol/a2a/types.js';
import type { TaskEventRecord } from '../store/task-event-record.js';

export type TaskEventListener = (record: TaskEventRecord) => void;

/** A user message sent on one replica to a task whose executor (or lease) is on another. */
export interface ForwardedMessage {
  agentId: string;
  /** the subject of the principal that sent it (already authorized by the receiving replica) */
  owner: string;
  message: Message;
  acceptedOutputModes?: string[];
  metadata?: JsonObject;
  /** extensions the caller asked for (A2A-Extensions) */
  extensions: string[];
  /**
   * the caller's usecases as the receiving replica's authorization engine bound them; absent =
   * unbound. Without it the holder would run the message with access to every usecase's data.
   */
  usecases?: string[];
  /** tracing on: the W3C traceparent of the forwarding replica's span, and of the span the task was created in */
  trace?: { parent?: string; task?: string };
}

/**
 * Control signals that must reach whichever process runs a task's executor. `to` names the
 * replica meant (absent: every replica); `from` is set by the bus to the publishing replica.
 */
export type TaskControl =
  | { type: 'cancel'; taskId: string; to?: string; from?: string }
  | { type: 'message'; taskId: string; forwarded: ForwardedMessage; to?: string; from?: string }
  /** a push config of the task was added or removed: replicas running it reload its configs */
  | { type: 'push-configs'; taskId: string; to?: string; from?: string };
export type TaskControlListener = (signal: TaskControl) => void;

export interface SubscribeOptions {
  /**
   * The last seq the subscriber already has (from a snapshot or a Last-Event-ID). A distributed
   * bus delivers exactly the records after it, in order, filling gaps from the event log; the
   * in-process bus, which cannot lose records, ignores it.
   */
  afterSeq?: number;
}

export interface BusHealth {
  ok: boolean;
  /** why not, for the logs (it may name hosts: /readyz does not show it) */
  detail?: string;
  /** a distributed bus: ms from publishing a probe to receiving it back through the bus */
  roundTripMs?: number;
}

export interface EventBus {
  publish(records: TaskEventRecord[]): void;
  subscribe(taskId: string, listener: TaskEventListener, opts?: SubscribeOptions): () => void;
  publishControl(signal: TaskControl): void;
  onControl(listener: TaskControlListener): () => void;
  health(): Promise<BusHealth>;
  close(): Promise<void>;
  /**
   * Offered by a bus that can tell when this replica is the only one listening (Redis): the number
   * of the present spell of being alone, undefined while not alone or unsure. A new number means
   * another replica may have written since the last (ADR 0095).
   */
  aloneSpell?(): number | undefined;
}
