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
 * turn and every caller reads for itself; asking then posts the message, so under load a window
 * opens in each turn, and an idle loop is left idle (no message is posted for a turn nobody used).
 */
import { setImmediate } from 'node:timers';
import { MessageChannel, type MessagePort } from 'node:worker_threads';

export class PollTurns {
  #turn = 0;
  #open = false;
  /** someone asked for the turn since the window opened: the next turn gets a window too */
  #asked = false;
  /** a message is on its way: the next poll phase opens a window */
  #coming = false;
  #sender: MessagePort | undefined;

  /** The number of the turn whose poll phase is under way, or undefined outside such a window. */
  current(): number | undefined {
    if (this.#open) {
      this.#asked = true;
      return this.#turn;
    }
    this.#ask();
    return undefined;
  }

  #ask(): void {
    if (this.#coming) return;
    this.#coming = true;
    (this.#sender ??= this.#channel()).postMessage(null);
  }

  #channel(): MessagePort {
    const { port1, port2 } = new MessageChannel();
    port2.on('message', this.#opened);
    // Neither end keeps the process alive (the listener refs the port, so unref after it).
    port1.unref();
    port2.unref();
    return port1;
  }

  readonly #opened = (): void => {
    this.#coming = false;
    this.#open = true;
    this.#asked = false;
    this.#turn++;
    setImmediate(this.#closed);
  };

  readonly #closed = (): void => {
    this.#open = false;
    if (this.#asked) this.#ask();
  };
}

/** The process's turns: every cache sharing a read per turn asks the same one. */
export const pollTurns = new PollTurns();
