/**
 * Exit codes of the A2A client commands (card, send, tasks), so scripts can branch without parsing
 * output. Documented in docs/cli.md; keep the two in step.
 */
import type { TaskState } from '../../protocol/a2a/types.js';
import { A2AClientError, AgentCardError, CardSignatureError, NoUsableInterfaceError, OAuthTokenError, TransportError } from '../../client/index.js';

export const EXIT = {
  /** the task completed, the agent replied with a message, or the operation succeeded */
  ok: 0,
  /** the task failed or was rejected */
  taskFailed: 1,
  /** bad arguments (commander's usage errors are 2 as well) */
  usage: 2,
  /** the task waits for the caller: INPUT_REQUIRED or AUTH_REQUIRED */
  needsInput: 3,
  /** the agent or its card could not be reached, or offers no interface this client speaks */
  unreachable: 4,
  /** the agent answered with an A2A error (TaskNotFound, InvalidParams, UnsupportedOperation…) */
  agentError: 5,
  /** the credential is missing, refused, or does not allow this (401 / 403, token endpoint refusal) */
  auth: 6,
  /** the task was canceled */
  canceled: 7,
  /** the card's signature does not verify with the keys given by --jwks */
  untrustedCard: 8,
  /** interrupted with Ctrl-C (128 + SIGINT) */
  interrupted: 130,
} as const;

export function exitCodeForState(state: TaskState | undefined): number {
  switch (state) {
    case 'TASK_STATE_FAILED':
    case 'TASK_STATE_REJECTED':
      return EXIT.taskFailed;
    case 'TASK_STATE_INPUT_REQUIRED':
    case 'TASK_STATE_AUTH_REQUIRED':
      return EXIT.needsInput;
    case 'TASK_STATE_CANCELED':
      return EXIT.canceled;
    default:
      return EXIT.ok;
  }
}

/** The code and a one-line explanation for an error a command could not handle. */
export function describeError(err: unknown): { code: number; message: string } {
  if (err instanceof A2AClientError) {
    if (err.kind === 'Unauthenticated' || err.kind === 'PermissionDenied') {
      return { code: EXIT.auth, message: `${err.message} (${err.kind === 'Unauthenticated' ? 'pass --api-key, --token or --client-id/--client-secret' : 'the credential lacks a scope this needs'})` };
    }
    return { code: EXIT.agentError, message: `${err.kind ?? 'A2A error'}: ${err.message}` };
  }
  if (err instanceof CardSignatureError) return { code: EXIT.untrustedCard, message: err.message };
  if (err instanceof OAuthTokenError) return { code: EXIT.auth, message: err.message };
  if (err instanceof TransportError || err instanceof AgentCardError || err instanceof NoUsableInterfaceError) return { code: EXIT.unreachable, message: err.message };
  return { code: 1, message: err instanceof Error ? err.message : String(err) };
}
