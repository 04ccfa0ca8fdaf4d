/** Who waits on a run: the blocking send, the stream, or nobody (a forwarded or recovered run). */
import type { Message, Task } from '../../protocol/a2a/types.js';

export interface RunObserver {
  /** the task was not created: an earlier request with the same messageId created this one */
  onDuplicate?(task: Task): void;
  onMessage(m: Message): void;
  onCommitted(): void;
  /** `task`: the task once the run's last commit is durable */
  onEnd(err?: Error, task?: Task): void;
}

export const NO_OBSERVER: RunObserver = { onMessage: () => {}, onCommitted: () => {}, onEnd: () => {} };

export function mergeObservers(a: RunObserver | undefined, b: RunObserver): RunObserver {
  if (!a) return b;
  return {
    onMessage: (m) => (a.onMessage(m), b.onMessage(m)),
    onCommitted: () => (a.onCommitted(), b.onCommitted()),
    onEnd: (e, t) => (a.onEnd(e, t), b.onEnd(e, t)),
    onDuplicate: (t) => (a.onDuplicate?.(t), b.onDuplicate?.(t)),
  };
}
