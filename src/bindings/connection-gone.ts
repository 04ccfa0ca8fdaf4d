import type { IncomingMessage } from 'node:http';

/**
 * Whether the client of a request has closed its connection (issue 19 C4): a client that timed out
 * while a stalled server had its request queued has sent its FIN long before the server runs again.
 *
 * The socket's own state (ended, destroyed, not writable once Node's HTTP server answers the EOF by
 * ending it) is only as fresh as the last read, and the EOF is never read together with the request:
 * libuv stops reading a socket at a partial read (the request), so the EOF waits for a later poll of
 * the socket. Meanwhile other sockets' events (the store's answer) run the request on to this check,
 * and the client would look connected. So the check first lets the event loop run one whole poll
 * phase, in which a socket with a pending EOF is reported readable (epoll is level-triggered) and
 * read, and Node ends it; then it reads the socket's state.
 */
export function connectionGone(req: IncomingMessage): Promise<boolean> {
  // A reaction on the shared wait, not an async function: its frame, promise and await cost every
  // SendMessage ~400 B (issue 26, docs/benchmarks.md alloc23); the answer comes in the same turn.
  return afterNextPoll().then(() => socketGone(req));
}

function socketGone(req: IncomingMessage): boolean {
  const s = req.socket;
  return s.destroyed || s.readableEnded || !s.writable;
}

/**
 * Resolves after the event loop has run a poll phase that started after this call: an immediate
 * scheduled from an immediate runs in the next iteration's check phase, which follows its poll
 * phase (not a timer: nothing waits longer than the loop takes to look at its pending I/O once).
 *
 * Shared by every call made before its first immediate runs (issue 26: the requests one poll phase
 * hands over, each of which made two immediates, their closures and a promise): the poll phase it
 * waits for starts after that immediate, so after each of those calls. A call made once the first
 * immediate has run starts a wait of its own.
 */
function afterNextPoll(): Promise<void> {
  if (pending === undefined) {
    pending = new Promise((resolve) =>
      setImmediate(() => {
        pending = undefined;
        setImmediate(resolve);
      }),
    );
  }
  return pending;
}

/** The wait calls share until its first immediate runs. */
let pending: Promise<void> | undefined;
