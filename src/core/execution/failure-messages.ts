/** The status texts of FAILED tasks that the server ended, not the agent. */

export const FAILED_SAFE_MESSAGE = 'The agent failed while processing this task.';
/**
 * Why a task was recovered, in words that say what happened (issue 19 C2): a replica that stops
 * renewing its lease may have died, been paused, or lost the database; only its lease is known lost.
 */
export const LEASE_LOST_MESSAGE = 'Lease lost: the replica running this task stopped renewing its lease before the task finished (it stopped, stalled, or lost the database); send the request again.';
export const STORAGE_UNAVAILABLE_MESSAGE = 'Storage unavailable: the database could not be reached for longer than this replica waits while the task was running; send the request again.';
export const STOPPED_MESSAGE = 'The agent stopped without finishing this task.';
/** The status texts of FAILED tasks the server ended, not the agent (a crash, a lost replica): protocol-level failures to MCP's tasks extension. */
export const SERVER_FAILURE_MESSAGES: ReadonlySet<string> = new Set([FAILED_SAFE_MESSAGE, LEASE_LOST_MESSAGE, STORAGE_UNAVAILABLE_MESSAGE, STOPPED_MESSAGE]);
