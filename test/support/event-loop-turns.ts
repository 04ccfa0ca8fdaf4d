/**
 * Places in the event loop for tests of what is shared per turn (ADR 0058, src/auth/poll-turns.ts).
 */
import { setImmediate as immediate } from 'node:timers';
import { MessageChannel } from 'node:worker_threads';

/**
 * Runs `fn` in an I/O callback of the next poll phase: a message on a channel made now, after the
 * turns' own (libuv runs async handles in the order they were made, so a turn asked for before
 * this call has opened when `fn` runs). `fn`'s own awaits stay in that poll phase.
 */
export function inPollPhase<T>(fn: () => T | Promise<T>): Promise<T> {
  const { port1, port2 } = new MessageChannel();
  return new Promise<T>((resolve, reject) => {
    port2.once('message', () => {
      port1.close();
      Promise.resolve().then(fn).then(resolve, reject);
    });
    port1.postMessage(null);
  });
}

/** Runs `fn` in the check phase (an immediate queued now). */
export const inImmediate = <T>(fn: () => T) => new Promise<T>((resolve) => immediate(() => resolve(fn())));

/** Runs `fn` in the timers phase of a later loop iteration. */
export const inTimer = <T>(fn: () => T) => new Promise<T>((resolve) => setTimeout(() => resolve(fn()), 0));

/**
 * Resolves in a later turn than any turn open now: an immediate queued now runs after that turn's
 * close, so nothing read in it is shared with what follows (where the next request is read).
 */
export const nextRequest = () => new Promise<void>((resolve) => immediate(resolve));
