/**
 * The messages still starting (starting-messages.ts): one entry per (agent, owner, messageId), the
 * last set, each left only by itself; keyed by the messageId alone, so the agent and owner must
 * still tell entries of one messageId apart.
 */
import { describe, expect, it } from 'vitest';
import { StartingMessages } from '../../../src/core/tasks/starting-messages.js';

const entry = (agentId: string, owner: string, taskId: string) => ({ agentId, owner, taskId, contextId: `c-${taskId}` });

describe('messages still starting', () => {
  it('finds an entry by its agent, owner and messageId only', () => {
    const s = new StartingMessages();
    const a = entry('echo', 'alice', 't-1');
    s.set('m-1', a);
    expect(s.get('echo', 'alice', 'm-1')).toBe(a);
    expect(s.get('echo', 'bob', 'm-1')).toBeUndefined();
    expect(s.get('other', 'alice', 'm-1')).toBeUndefined();
    expect(s.get('echo', 'alice', 'm-2')).toBeUndefined();
  });

  it('keeps the entries of one messageId from different callers and agents apart', () => {
    const s = new StartingMessages();
    const a = entry('echo', 'alice', 't-1');
    const b = entry('echo', 'bob', 't-2');
    const c = entry('other', 'alice', 't-3');
    s.set('m-1', a);
    s.set('m-1', b);
    s.set('m-1', c);
    expect([s.get('echo', 'alice', 'm-1'), s.get('echo', 'bob', 'm-1'), s.get('other', 'alice', 'm-1')]).toEqual([a, b, c]);
    s.leave('m-1', b);
    expect([s.get('echo', 'alice', 'm-1'), s.get('echo', 'bob', 'm-1'), s.get('other', 'alice', 'm-1')]).toEqual([a, undefined, c]);
    s.leave('m-1', a);
    expect([s.get('echo', 'alice', 'm-1'), s.get('other', 'alice', 'm-1')]).toEqual([undefined, c]);
    s.leave('m-1', c);
    expect(s.get('other', 'alice', 'm-1')).toBeUndefined();
  });

  it('answers with the entry set last for the same three, and an entry replaced is left without removing its successor', () => {
    for (const other of [undefined, entry('echo', 'bob', 't-9')]) {
      const s = new StartingMessages();
      if (other) s.set('m-1', other);
      const first = entry('echo', 'alice', 't-1');
      const second = entry('echo', 'alice', 't-2');
      s.set('m-1', first);
      s.set('m-1', second);
      expect(s.get('echo', 'alice', 'm-1')).toBe(second);
      s.leave('m-1', first);
      expect(s.get('echo', 'alice', 'm-1')).toBe(second);
      s.leave('m-1', second);
      s.leave('m-1', second);
      expect(s.get('echo', 'alice', 'm-1')).toBeUndefined();
      if (other) expect(s.get('echo', 'bob', 'm-1')).toBe(other);
    }
  });
});
