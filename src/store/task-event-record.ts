/**
 * One entry of a task's event log: what the store appends in the task's commit and what the event
 * bus carries to every subscriber, on this replica and the others. Its own file because both sit
 * at the same level below the core: the bus may import this record from the store, and nothing
 * else (docs/decisions/0013-dependency-rules.md).
 */
import type { Message, StreamResponse } from '../protocol/a2a/types.js';

/** What the log records: the A2A stream events plus a user message appended to an existing task. */
export type TaskEventPayload = StreamResponse | { userMessage: Message };

export interface TaskEventRecord {
  taskId: string;
  /** 1-based, gapless per task */
  seq: number;
  event: TaskEventPayload;
  /** epoch ms */
  createdAt: number;
}
