/** Reading a logged event as a stream sees it: its state, and whether it ends a stream. */
import { isTerminal, type StreamResponse, type TaskState } from '../../protocol/a2a/types.js';
import type { TaskEventPayload } from '../../store/store.js';

export const stateOf = (e: TaskEventPayload): TaskState | undefined => ('statusUpdate' in e ? e.statusUpdate.status.state : 'task' in e ? e.task.status.state : undefined);

/** Streams close at a terminal state and at INPUT_REQUIRED; AUTH_REQUIRED keeps them open (spec §7.6.1). */
export const endsStream = (s: TaskState | undefined): boolean => s !== undefined && (isTerminal(s) || s === 'TASK_STATE_INPUT_REQUIRED');

/** A user message is logged but never streamed (it is no StreamResponse). */
export const isStreamEvent = (e: TaskEventPayload): e is StreamResponse => !('userMessage' in e);
