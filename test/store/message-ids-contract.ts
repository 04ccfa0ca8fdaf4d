/**
 * SendMessage idempotency keys, part of the Store contract (issue 19 C1): a new task may carry the
 * messageId that created it; a second task with the same (agent, owner, messageId) is refused like a
 * concurrent create, and the key finds the first one.
 */
import { describe, expect, it } from 'vitest';
import { ConcurrentUpdateError } from '../../src/store/store.js';
import { newTask, update } from './fixtures.js';
import type { ContractContext } from './store-contract.js';

export function describeMessageIdsContract(ctx: ContractContext): void {
  describe('task message ids (SendMessage idempotency)', () => {
    it('finds a task by the messageId that created it, only for its agent and owner', async () => {
      const t = { ...newTask({ agentId: 'agent-a', owner: 'alice' }), originMessageId: 'm-1' };
      await ctx.store().commit([t]);
      await ctx.store().commit([update(t, { state: 'TASK_STATE_WORKING' })]);
      const found = await ctx.store().findTaskByMessageId('agent-a', 'alice', 'm-1');
      expect(found).toMatchObject({ task: { id: t.task.id, status: { state: 'TASK_STATE_WORKING' } }, version: 2 });
      expect(await ctx.store().findTaskByMessageId('agent-a', 'bob', 'm-1')).toBeUndefined();
      expect(await ctx.store().findTaskByMessageId('agent-b', 'alice', 'm-1')).toBeUndefined();
      expect(await ctx.store().findTaskByMessageId('agent-a', 'alice', 'm-2')).toBeUndefined();
    });

    // Pins: lookups asked together (PostgreSQL sends them as one statement over arrays) are each
    // answered by their own key. The join returns rows in no particular order and only for hits, so
    // matching the answers by position would hand one caller another's task or a miss.
    it('answers lookups asked at once each by its own key, hits and misses mixed', async () => {
      const made = ['k-1', 'k-2', 'k-3'].map((m, i) => ({ ...newTask({ agentId: 'agent-batch', owner: `owner-${i}` }), originMessageId: m }));
      // committed in reverse, so the table's physical order is not the order asked
      for (const t of [...made].reverse()) await ctx.store().commit([t]);
      const asked: Array<[string, string, string, string | undefined]> = [
        ['agent-batch', 'owner-9', 'k-1', undefined],
        ['agent-batch', 'owner-2', 'k-3', made[2]!.task.id],
        ['agent-batch', 'owner-0', 'missing', undefined],
        ['agent-batch', 'owner-0', 'k-1', made[0]!.task.id],
        ['agent-other', 'owner-1', 'k-2', undefined],
        ['agent-batch', 'owner-1', 'k-2', made[1]!.task.id],
      ];
      const found = await Promise.all(asked.map(([agent, owner, messageId]) => ctx.store().findTaskByMessageId(agent, owner, messageId)));
      expect(found.map((t) => t?.task.id)).toEqual(asked.map((a) => a[3]));
      expect(found.map((t) => t && [t.agentId, t.owner])).toEqual(asked.map((a) => a[3] && [a[0], a[1]]));
    });

    it('refuses a second task with the same (agent, owner, messageId), alone or in a batch, and keeps the first', async () => {
      const first = { ...newTask({ owner: 'alice' }), originMessageId: 'dup' };
      await ctx.store().commit([first]);
      const second = { ...newTask({ owner: 'alice' }), originMessageId: 'dup' };
      const err = await ctx
        .store()
        .commit([second])
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(ConcurrentUpdateError);
      expect((err as ConcurrentUpdateError).taskId).toBe(second.task.id);
      expect(await ctx.store().getTask(second.agentId, second.task.id)).toBeUndefined();
      // Another owner, or a task without a key, is not affected.
      const otherOwner = { ...newTask({ owner: 'bob' }), originMessageId: 'dup' };
      await ctx.store().commit([otherOwner, newTask({ owner: 'alice' }), newTask({ owner: 'alice' })]);
      expect((await ctx.store().findTaskByMessageId(first.agentId, 'alice', 'dup'))?.task.id).toBe(first.task.id);
      expect((await ctx.store().findTaskByMessageId(first.agentId, 'bob', 'dup'))?.task.id).toBe(otherOwner.task.id);
    });
  });
}
