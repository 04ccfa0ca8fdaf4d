/**
 * The event-loop turns a credentials generation read is shared in (ADR 0058): a turn opens only
 * in a poll phase, in an I/O callback of its own (a MessagePort message, delivered after
 * epoll_wait), and closes in the check phase of the same loop iteration, before any immediate
 * queued while it was open. Timers and the macrotask that asks see no turn (every caller reads for
 * itself there); a loop nobody asks is left idle, and the asking never keeps the process alive.
 */
import { describe, expect, it } from 'vitest';
import { PollTurns } from '../../src/auth/poll-turns.js';
import { inImmediate, inPollPhase, inTimer } from '../support/event-loop-turns.js';

describe('PollTurns', () => {
  it('has no turn in the macrotask that asks, nor in the timers of the next iterations', async () => {
    const turns = new PollTurns();
    expect(turns.current()).toBeUndefined();
    expect(turns.current()).toBeUndefined();
    expect(await inTimer(() => turns.current())).toBeUndefined();
    // a turn used (so followed by another), then timers again
    expect(await inPollPhase(() => turns.current())).toBeTypeOf('number');
    expect(await inTimer(() => turns.current())).toBeUndefined();
    expect(await inTimer(() => turns.current())).toBeUndefined();
  });

  it('opens a turn in the next poll phase, the same for every caller until the check phase closes it', async () => {
    const turns = new PollTurns();
    turns.current();
    const [first, again] = await inPollPhase(() => [turns.current(), turns.current()]);
    expect(first).toBeTypeOf('number');
    expect(again).toBe(first);
    // an immediate queued while the turn is open runs after its close (armed when it opened)
    const [inPoll, inCheck] = await inPollPhase(() => {
      const open = turns.current();
      return Promise.all([open, inImmediate(() => turns.current())]);
    });
    expect(inPoll).toBeTypeOf('number');
    expect(inPoll).not.toBe(first); // a turn used is followed by a turn: the next poll phase had its own
    expect(inCheck).toBeUndefined();
  });

  it('opens no turn before the poll phase: a timer due in the next loop iteration runs with none', async () => {
    const turns = new PollTurns();
    // Asked in the check phase, with a timer that is due by the next iteration's timers phase.
    const seenByTimer = await inImmediate(
      () =>
        new Promise<number | undefined>((resolve) => {
          setTimeout(() => resolve(turns.current()), 1);
          const until = Date.now() + 5;
          while (Date.now() < until); // the timer is due before the loop polls again
          turns.current();
        }),
    );
    expect(seenByTimer).toBeUndefined();
  });

  it('leaves an idle loop idle: a turn nobody asked for is not followed by another', async () => {
    const turns = new PollTurns();
    turns.current();
    await inPollPhase(() => undefined); // a turn opened and closed unused
    await inImmediate(() => undefined);
    expect(await inPollPhase(() => turns.current())).toBeUndefined();
  });

  it('does not keep the process alive while a turn is asked for', () => {
    const turns = new PollTurns();
    const before = process.getActiveResourcesInfo().filter((r) => r === 'MessagePort').length;
    turns.current();
    expect(process.getActiveResourcesInfo().filter((r) => r === 'MessagePort').length).toBe(before);
  });
});
