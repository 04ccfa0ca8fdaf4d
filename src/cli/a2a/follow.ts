/**
 * Runs a task stream (send --stream, tasks subscribe) through the live view: Ctrl-C stops
 * following (the task keeps running and the command says how to pick it up again), the exit code
 * says how the task ended.
 */
import type { A2AClient, ClientEvent, StreamEvent } from '../../client/index.js';
import type { CliIO } from '../io.js';
import { describeError, EXIT, exitCodeForState } from './exit-codes.js';
import { LiveView } from './live-view.js';

export interface FollowOptions {
  json?: boolean;
  /** the agent URL the user typed, for the hints */
  url: string;
}

/** An onEvent hook that can be pointed at the view once it exists (the client is built first). */
export function clientEventRelay(): { onEvent: (e: ClientEvent) => void; target: { view?: LiveView } } {
  const target: { view?: LiveView } = {};
  return {
    target,
    onEvent: (e) => {
      if (e.type === 'resume') target.view?.resuming(e.attempt, e.lastEventId);
    },
  };
}

export const viewMode = (io: CliIO, json?: boolean): 'json' | 'tty' | 'plain' => (json ? 'json' : io.isTTY ? 'tty' : 'plain');

export async function followStream(io: CliIO, client: A2AClient, open: (signal: AbortSignal) => AsyncIterable<StreamEvent>, o: FollowOptions, view = new LiveView(io, { mode: viewMode(io, o.json) })): Promise<number> {
  const abort = new AbortController();
  io.onSignal('SIGINT', () => abort.abort());
  try {
    for await (const ev of open(abort.signal)) {
      view.event(ev.response, ev.id);
      if (abort.signal.aborted) break;
    }
  } catch (err) {
    if (!abort.signal.aborted) {
      view.stop();
      const { code, message } = describeError(err);
      io.stderr(`agentport: ${message}\n`);
      return code;
    }
  } finally {
    view.stop();
    client.close();
  }
  if (abort.signal.aborted) {
    if (view.taskId) io.stderr(`stopped following; task ${view.taskId} keeps running. Follow it again: agentport tasks subscribe ${o.url} ${view.taskId}\n`);
    return EXIT.interrupted;
  }
  if (view.replied) return EXIT.ok;
  if (view.state === 'TASK_STATE_INPUT_REQUIRED' && view.taskId) io.stderr(`the agent needs input; answer with: agentport send ${o.url} "<reply>" --task ${view.taskId}\n`);
  return exitCodeForState(view.state);
}
