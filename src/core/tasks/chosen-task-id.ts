/**
 * A task id chosen before the task exists. v0.1 clients named their tasks; the v0.1 binding turns
 * that name into a server id (src/protocol/a2a-v01/task-ids.ts) and sets it on the call, and a
 * SendMessage that creates a task creates it under that id instead of a fresh one. Only the v0.1
 * binding sets it; it never reaches the core from a v1.0 or v0.3 request.
 */
import type { CallContext } from '../a2a-handler.js';

export interface ChosenTaskId {
  newTaskId?: string;
}

export const chosenTaskIdOf = (ctx: CallContext): string | undefined => (ctx as CallContext & ChosenTaskId).newTaskId;
