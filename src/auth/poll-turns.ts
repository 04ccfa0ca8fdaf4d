/**
 * The event-loop turns a read may be shared in (ADR 0058). A request is read from its socket in
 * the poll phase of a turn; everything the clients sent before that poll began (libuv's
 * epoll_wait returned) is there to be read in it. So one read made after the poll began, shared by
 * the requests of that turn, judges each of them by a state no older than the start of the turn it
 * was read in; a change committed during the turn is concurrent with them, as it is with requests
 * in flight. The next turn must read again.
 *
 * Node tells JavaScript neither that a poll began nor which phase runs, so a window is opened by an
 * I/O callback of our own: a MessagePort message, delivered by libuv's async handle in the poll
 * phase, after epoll_wait, never in the timers or check phase. The window closes in the check
 * phase of the same turn (setImmediate, armed from the poll phase, runs there). Outside a window
 * (timers, check and close phases, a poll before the message comes, an idle loop) there is no
 * turn and every caller reads for itself.
 *
 * The message for the next turn is posted by the first caller of a turn, not when the turn closes:
 * libuv hands a poll's ready descriptors out in the order they became ready, so a message posted
 * early in this turn comes before the requests that the answers of this turn's check phase (the
 * group commit) bring back, and the next window opens before they are read. A turn nobody used
 * posts none: an idle loop is left idle.
 */
import { setImmediate } from 'node:timers';
import { MessageChannel, type MessagePort } from 'node:worker_threads';

export class PollTurns {
  #turn = 0;
  #open = false;
  /** a message is on its way: a later poll phase opens a window (never this callback's: see #ask) */
  #coming = false;
  #sender: MessagePort | undefined;

  /** The number of the turn whose poll phase is under way, or undefined outside such a window. */
  current(): number | undefined {
    // Outside a window: for the next poll phase; in one: for the next turn's.
    this.#ask();
    return this.#open ? this.#turn : undefined;
  }

  /**
   * Posted from a caller's callback, never from the message's own (#opened asks nothing): Node
   * hands a port every message queued while its callback runs in that same callback, so one posted
   * there would open the next window in this poll phase.
   */
  #ask(): void {
    if (this.#coming) return;
    this.#coming = true;
    (this.#sender ??= this.#channel()).postMessage(null);
  }

  #channel(): MessagePort {
    const { port1, port2 } = new MessageChannel();
    port2.on('message', this.#opened);
    // The receiving end does not keep the process alive (its listener refs it, so unref after;
    // the sending end has no listener, so Node leaves it unreferenced).
    port2.unref();
    return port1;
  }

  readonly #opened = (): void => {
    this.#coming = false;
    this.#open = true;
    this.#turn++;
    setImmediate(this.#closed);
  };

  readonly #closed = (): void => {
    this.#open = false;
  };
}

/** The process's turns: every cache sharing a read per turn asks the same one. */
export const pollTurns = new PollTurns();
