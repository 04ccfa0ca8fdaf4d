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
