/**
 * The live view's layout rules, fed the events a real stream carries: chunks of one artifact run
 * on one line, a new artifact starts a new line, a subscribe snapshot prints what was produced so
 * far and leaves the open artifact's line open, and on a terminal the status line never overwrites
 * streamed text.
 */
import { describe, expect, it } from 'vitest';
import { LiveView } from '../../src/cli/a2a/live-view.js';
import type { StreamResponse } from '../../src/protocol/a2a/types.js';
import { fakeIO } from './fake-io.js';

const ids = { taskId: 't1', contextId: 'c1' };
const status = (state: string): StreamResponse => ({ statusUpdate: { ...ids, status: { state: state as never } } });
const chunk = (artifactId: string, text: string, o: { append?: boolean; lastChunk?: boolean } = {}): StreamResponse => ({
  artifactUpdate: { ...ids, artifact: { artifactId, parts: [{ text }] }, ...o },
});

function render(mode: 'plain' | 'tty', events: StreamResponse[]): string {
  const io = fakeIO('/');
  let t = 0;
  const view = new LiveView(io, { mode, now: () => (t += 100) });
  for (const e of events) view.event(e);
  view.stop();
  return io.out;
}

describe('LiveView', () => {
  it('runs the chunks of one artifact together and ends the line at its last chunk', () => {
    const out = render('plain', [
      { task: { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_SUBMITTED' } } },
      status('TASK_STATE_WORKING'),
      chunk('a', 'Hello', { lastChunk: false }),
      chunk('a', ' world', { append: true, lastChunk: false }),
      chunk('a', '!', { append: true, lastChunk: true }),
      chunk('b', 'second artifact'),
      status('TASK_STATE_COMPLETED'),
    ]);
    expect(out.split('\n').filter((l) => !l.startsWith('['))).toEqual(['Hello world!', 'second artifact', '']);
    expect(out).toMatch(/\] completed\n$/);
  });

  it('prints what a subscribe snapshot already holds, and continues its open artifact', () => {
    const out = render('plain', [
      { task: { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' }, artifacts: [{ artifactId: 'a', parts: [{ text: 'Ports' }, { text: ' wait' }] }] } },
      chunk('a', ' in the dark', { append: true, lastChunk: true }),
      status('TASK_STATE_COMPLETED'),
    ]);
    expect(out).toContain('\nPorts wait in the dark\n');
  });

  it('on a terminal, never clears a line that streamed text is still being written to', () => {
    const out = render('tty', [status('TASK_STATE_WORKING'), chunk('a', 'one', { lastChunk: false }), chunk('a', ' two', { append: true, lastChunk: true })]);
    expect(out).toContain('one two\n');
    expect(out).not.toMatch(/one\r/);
  });

  it('--json writes one object per event, with its id', () => {
    const io = fakeIO('/');
    const view = new LiveView(io, { mode: 'json' });
    view.event(status('TASK_STATE_WORKING'), '7');
    view.stop();
    expect(JSON.parse(io.out)).toEqual({ id: '7', ...status('TASK_STATE_WORKING') });
  });
});
