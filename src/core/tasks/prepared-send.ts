/** A SendMessage ready to go: the task it targets, and how to start it once a waiter listens. */
import type { Task } from '../../protocol/a2a/types.js';
import type { RunObserver } from '../execution/run-observer.js';

export interface PreparedSend {
  taskId: string;
  contextId: string;
  /** the task's last seq before this message: waits see only what follows */
  startSeq: number;
  /** the task as it stood, when the message continues one */
  existing?: { task: Task; seq: number };
  /** `createTaskNow` (returnImmediately): a new task is stored before the agent's first event */
  start(obs: RunObserver, opts?: { createTaskNow?: boolean }): void;
  /** true when the task runs elsewhere (another replica) or already ran (a retry) */
  remote: boolean;
}
