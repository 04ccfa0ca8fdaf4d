/**
 * A task id chosen before the task exists (CallContext.clientTaskId): v0.1 clients named their
 * tasks, the v0.1 binding turns that name into a server id (src/protocol/a2a-v01/task-ids.ts) and
 * sets it on the call. It never reaches the core from a v1.0 or v0.3 request.
 */
import type { CallContext } from '../a2a-handler.js';

export const chosenTaskIdOf = (ctx: CallContext): string | undefined => ctx.clientTaskId;
