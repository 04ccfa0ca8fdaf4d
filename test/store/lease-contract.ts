/**
 * Task leases (distributed mode), part of the Store contract: which replica runs a task's
 * executor, until when, and the version bump that fences a replica that lost its lease.
 */
import { describe, expect, it } from 'vitest';
import { ConcurrentUpdateError, type TaskCommit, type TaskLease } from '../../src/store/store.js';
import { newTask, T0, update, type NewTaskOptions } from './fixtures.js';
import type { ContractContext } from './store-contract.js';

const TTL = 30_000;
const lease = (owner: string, expiresAt = T0 + TTL): TaskLease => ({ owner, expiresAt });

function leasedTask(owner: string | undefined, o: NewTaskOptions & { expiresAt?: number } = {}): TaskCommit {
  const c = newTask(o);
  return owner === undefined ? c : { ...c, lease: lease(owner, o.expiresAt) };
}

export function describeLeaseContract(ctx: ContractContext): void {
  describe('task leases', () => {
    describe('commit', () => {
      it('writes the lease of a new task and getTask reads it back; a task without one has none', async () => {
        const held = leasedTask('replica-1');
        const free = newTask();
        await ctx.store().commit([held, free]);
        expect(await ctx.store().getTask('agent-a', held.task.id)).toMatchObject({ version: 1, lease: lease('replica-1') });
        const stored = await ctx.store().getTask('agent-a', free.task.id);
        expect(stored).toBeDefined();
        expect(stored).not.toHaveProperty('lease');
      });

      it('keeps the stored lease when an update carries none, replaces it when it carries one', async () => {
        const c1 = leasedTask('replica-1');
        const c2 = update(c1);
        const c3 = { ...update(c2), lease: lease('replica-1', T0 + 2 * TTL) };
        await ctx.store().commit([c1]);
        await ctx.store().commit([c2]);
        expect(await ctx.store().getTask('agent-a', c1.task.id)).toMatchObject({ version: 2, lease: lease('replica-1') });
        await ctx.store().commit([c3]);
        expect(await ctx.store().getTask('agent-a', c1.task.id)).toMatchObject({ version: 3, lease: lease('replica-1', T0 + 2 * TTL) });
      });

      it('writes each lease of a batch mixing updates with and without one', async () => {
        const a = leasedTask('replica-1');
        const b = leasedTask('replica-1');
        const c = newTask();
        await ctx.store().commit([a, b, c]);
        // c is free: replica-3 claims it (version 2) before it writes it
        await ctx.store().claimTask('agent-a', c.task.id, 'replica-3', T0, T0 + TTL);
        await ctx.store().commit([{ ...update(a), lease: lease('replica-1', T0 + 5) }, update(b), { ...update(c, { expectedVersion: 2 }), lease: lease('replica-3', T0 + 6) }]);
        expect((await ctx.store().getTask('agent-a', a.task.id))?.lease).toEqual(lease('replica-1', T0 + 5));
        expect((await ctx.store().getTask('agent-a', b.task.id))?.lease).toEqual(lease('replica-1'));
        expect((await ctx.store().getTask('agent-a', c.task.id))?.lease).toEqual(lease('replica-3', T0 + 6));
      });
    });

    describe('the fence: a writer that does not hold the lease cannot write the task (ADR 0070)', () => {
      const refusal = (commits: TaskCommit[]) =>
        ctx
          .store()
          .commit(commits)
          .then(
            () => undefined,
            (e: unknown) => e,
          );

      it('refuses the commit of a replica that released its lease (a rolling restart hand-over), at a matching version', async () => {
        const c1 = leasedTask('replica-1');
        await ctx.store().commit([c1]);
        await ctx.store().releaseLease(c1.task.id, 'replica-1');
        // released, not yet claimed: the version is still the one replica-1 read
        const late = { ...update(c1), lease: lease('replica-1', T0 + 2 * TTL) };
        const err = await refusal([late]);
        expect(err).toBeInstanceOf(ConcurrentUpdateError);
        expect((err as ConcurrentUpdateError).taskId).toBe(c1.task.id);
        const stored = await ctx.store().getTask('agent-a', c1.task.id);
        expect(stored).toMatchObject({ version: 1, seq: 1 });
        // the late writer did not take the lease back: the task is free for the next sweep
        expect(stored).not.toHaveProperty('lease');
        expect(await ctx.store().claimOrphanedTasks(['TASK_STATE_SUBMITTED'], 'replica-2', T0, T0 + TTL, 10)).toHaveLength(1);
      });

      it("refuses the commit of a replica that is not the lease's holder, at a matching version", async () => {
        const c1 = leasedTask('replica-1');
        await ctx.store().commit([c1]);
        const err = await refusal([{ ...update(c1), lease: lease('replica-2') }]);
        expect(err).toBeInstanceOf(ConcurrentUpdateError);
        expect(await ctx.store().getTask('agent-a', c1.task.id)).toMatchObject({ version: 1, seq: 1, lease: lease('replica-1') });
      });

      it('names the refused commit of a batch, and writes nothing of the batch', async () => {
        const mine = leasedTask('replica-1');
        const released = leasedTask('replica-1');
        await ctx.store().commit([mine, released]);
        await ctx.store().releaseLease(released.task.id, 'replica-1');
        const err = await refusal([
          { ...update(mine), lease: lease('replica-1') },
          { ...update(released), lease: lease('replica-1') },
        ]);
        expect(err).toBeInstanceOf(ConcurrentUpdateError);
        expect((err as ConcurrentUpdateError).taskId).toBe(released.task.id);
        expect(await ctx.store().getTask('agent-a', mine.task.id)).toMatchObject({ version: 1, seq: 1 });
      });

      it('lets the holder write after its lease expired when nobody took it (and renews it); refuses it once another replica took it', async () => {
        const c1 = leasedTask('replica-1', { expiresAt: T0 + 10 });
        await ctx.store().commit([c1]);
        // expired at T0 + 10, still replica-1's: its commit goes through and extends the lease
        const c2 = { ...update(c1), lease: lease('replica-1', T0 + TTL) };
        await ctx.store().commit([c2]);
        expect(await ctx.store().getTask('agent-a', c1.task.id)).toMatchObject({ version: 2, seq: 2, lease: lease('replica-1', T0 + TTL) });
        // expired again and taken by a sweep of replica-2
        const taken = await ctx.store().claimOrphanedTasks(['TASK_STATE_WORKING'], 'replica-2', T0 + TTL + 1, T0 + 3 * TTL, 10);
        expect(taken.map((t) => t.task.id)).toEqual([c1.task.id]);
        const err = await refusal([{ ...update(c2), lease: lease('replica-1', T0 + 2 * TTL) }]);
        expect(err).toBeInstanceOf(ConcurrentUpdateError);
        expect(await ctx.store().getTask('agent-a', c1.task.id)).toMatchObject({ version: 3, seq: 2, lease: lease('replica-2', T0 + 3 * TTL) });
      });

      it('leaves a commit without a lease (a store one process owns) to the version check alone', async () => {
        const c1 = newTask();
        await ctx.store().commit([c1]);
        await ctx.store().commit([update(c1)]);
        expect(await ctx.store().getTask('agent-a', c1.task.id)).toMatchObject({ version: 2, seq: 2 });
      });
    });

    describe('claimTask', () => {
      it('takes a free task, setting the lease and incrementing the version', async () => {
        const c = newTask();
        await ctx.store().commit([c]);
        const claimed = await ctx.store().claimTask('agent-a', c.task.id, 'replica-1', T0, T0 + TTL);
        expect(claimed).toMatchObject({ agentId: 'agent-a', owner: 'alice', task: c.task, seq: 1, version: 2, lease: lease('replica-1') });
        expect(await ctx.store().getTask('agent-a', c.task.id)).toEqual(claimed);
      });

      it('extends the lease its owner already holds', async () => {
        const c = leasedTask('replica-1');
        await ctx.store().commit([c]);
        const claimed = await ctx.store().claimTask('agent-a', c.task.id, 'replica-1', T0 + 1, T0 + 1 + TTL);
        expect(claimed).toMatchObject({ version: 2, lease: lease('replica-1', T0 + 1 + TTL) });
      });

      it("returns undefined and changes nothing while another replica's lease is live, up to its expiry", async () => {
        const c = leasedTask('replica-1');
        await ctx.store().commit([c]);
        expect(await ctx.store().claimTask('agent-a', c.task.id, 'replica-2', T0, T0 + TTL)).toBeUndefined();
        expect(await ctx.store().claimTask('agent-a', c.task.id, 'replica-2', T0 + TTL, T0 + 2 * TTL)).toBeUndefined();
        expect(await ctx.store().getTask('agent-a', c.task.id)).toMatchObject({ version: 1, lease: lease('replica-1') });
      });

      it('takes a task whose lease expired before now', async () => {
        const c = leasedTask('replica-1');
        await ctx.store().commit([c]);
        const claimed = await ctx.store().claimTask('agent-a', c.task.id, 'replica-2', T0 + TTL + 1, T0 + 2 * TTL);
        expect(claimed).toMatchObject({ version: 2, lease: lease('replica-2', T0 + 2 * TTL) });
      });

      it('takes a live lease of another replica with force', async () => {
        const c = leasedTask('replica-1');
        await ctx.store().commit([c]);
        const claimed = await ctx.store().claimTask('agent-a', c.task.id, 'replica-2', T0, T0 + TTL, true);
        expect(claimed).toMatchObject({ version: 2, lease: lease('replica-2') });
      });

      it('returns undefined for an unknown task and for a task of another agent', async () => {
        const c = newTask();
        await ctx.store().commit([c]);
        expect(await ctx.store().claimTask('agent-a', 'no-such-task', 'replica-1', T0, T0 + TTL)).toBeUndefined();
        expect(await ctx.store().claimTask('agent-b', c.task.id, 'replica-1', T0, T0 + TTL, true)).toBeUndefined();
        expect(await ctx.store().getTask('agent-a', c.task.id)).toMatchObject({ version: 1 });
      });

      it('fences the replica that lost the task: its next commit fails with ConcurrentUpdateError', async () => {
        const c1 = leasedTask('replica-1');
        await ctx.store().commit([c1]);
        // replica-1 read version 1; replica-2 preempts it (cancel) before replica-1 commits
        await ctx.store().claimTask('agent-a', c1.task.id, 'replica-2', T0, T0 + TTL, true);
        const late = { ...update(c1, { expectedVersion: 1 }), lease: lease('replica-1') };
        const err = await ctx
          .store()
          .commit([late])
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        expect(err).toBeInstanceOf(ConcurrentUpdateError);
        expect((err as ConcurrentUpdateError).taskId).toBe(c1.task.id);
        expect(await ctx.store().getTask('agent-a', c1.task.id)).toMatchObject({ version: 2, seq: 1, lease: lease('replica-2') });
        // the new holder commits from the version its claim returned
        await ctx.store().commit([{ ...update(c1, { expectedVersion: 2 }), lease: lease('replica-2') }]);
        expect(await ctx.store().getTask('agent-a', c1.task.id)).toMatchObject({ version: 3, seq: 2 });
      });
    });

    describe('renewLeases', () => {
      it("extends the owner's leases and returns only the ids it still held", async () => {
        const mine1 = leasedTask('replica-1');
        const mine2 = leasedTask('replica-1', { expiresAt: T0 - 1 });
        const theirs = leasedTask('replica-2');
        const free = newTask();
        await ctx.store().commit([mine1, mine2, theirs, free]);
        const held = await ctx.store().renewLeases('replica-1', [mine1.task.id, mine2.task.id, theirs.task.id, free.task.id, 'no-such-task'], T0 + 3 * TTL);
        expect([...held].sort()).toEqual([mine1.task.id, mine2.task.id].sort());
        expect((await ctx.store().getTask('agent-a', mine1.task.id))?.lease).toEqual(lease('replica-1', T0 + 3 * TTL));
        expect((await ctx.store().getTask('agent-a', mine2.task.id))?.lease).toEqual(lease('replica-1', T0 + 3 * TTL));
        expect((await ctx.store().getTask('agent-a', theirs.task.id))?.lease).toEqual(lease('replica-2'));
        expect(await ctx.store().getTask('agent-a', free.task.id)).not.toHaveProperty('lease');
      });

      it('does not bump the version and accepts an empty list', async () => {
        const c = leasedTask('replica-1');
        await ctx.store().commit([c]);
        await ctx.store().renewLeases('replica-1', [c.task.id], T0 + 2 * TTL);
        expect((await ctx.store().getTask('agent-a', c.task.id))?.version).toBe(1);
        expect(await ctx.store().renewLeases('replica-1', [], T0)).toEqual([]);
      });

      it('renews tasks whose ids hold quotes, commas, braces and backslashes', async () => {
        const ids = ['a,b', 'q"uote', '{brace}', 'back\\slash', "it's", 'NULL'];
        await ctx.store().commit(ids.map((id) => leasedTask('replica-1', { id })));
        const held = await ctx.store().renewLeases('replica-1', ids, T0 + 7);
        expect([...held].sort()).toEqual([...ids].sort());
        for (const id of ids) expect((await ctx.store().getTask('agent-a', id))?.lease).toEqual(lease('replica-1', T0 + 7));
      });

      it('renews more leases than fit in one statement', async () => {
        const commits = Array.from({ length: 1200 }, () => leasedTask('replica-1'));
        await ctx.store().commit(commits);
        const held = await ctx.store().renewLeases(
          'replica-1',
          commits.map((c) => c.task.id),
          T0 + 9,
        );
        expect(held).toHaveLength(1200);
        expect((await ctx.store().getTask('agent-a', commits[1100]!.task.id))?.lease).toEqual(lease('replica-1', T0 + 9));
      });
    });

    describe('releaseLease', () => {
      it("clears the owner's lease without bumping the version", async () => {
        const c = leasedTask('replica-1');
        await ctx.store().commit([c]);
        await ctx.store().releaseLease(c.task.id, 'replica-1');
        const stored = await ctx.store().getTask('agent-a', c.task.id);
        expect(stored).toMatchObject({ version: 1 });
        expect(stored).not.toHaveProperty('lease');
        // the task is free again
        expect(await ctx.store().claimTask('agent-a', c.task.id, 'replica-2', T0, T0 + TTL)).toMatchObject({ lease: lease('replica-2') });
      });

      it('is a no-op when the caller no longer holds the lease', async () => {
        const c = leasedTask('replica-2');
        await ctx.store().commit([c]);
        await ctx.store().releaseLease(c.task.id, 'replica-1');
        await ctx.store().releaseLease('no-such-task', 'replica-1');
        expect(await ctx.store().getTask('agent-a', c.task.id)).toMatchObject({ version: 1, lease: lease('replica-2') });
      });
    });

    describe('claimOrphanedTasks', () => {
      const LIVE = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'] as const;

      it('claims only tasks in the given states whose lease is absent or expired, oldest first', async () => {
        const now = T0 + 100;
        const workingFree = newTask({ state: 'TASK_STATE_WORKING', time: T0 + 3 });
        const submittedExpired = leasedTask('dead-replica', { state: 'TASK_STATE_SUBMITTED', time: T0 + 1, expiresAt: now - 1 });
        const workingLive = leasedTask('replica-2', { state: 'TASK_STATE_WORKING', time: T0, expiresAt: now });
        const completedFree = newTask({ state: 'TASK_STATE_COMPLETED', time: T0 });
        const inputRequired = newTask({ state: 'TASK_STATE_INPUT_REQUIRED', time: T0 });
        const otherAgent = newTask({ agentId: 'agent-b', owner: 'bob', state: 'TASK_STATE_WORKING', time: T0 + 2 });
        await ctx.store().commit([workingFree, submittedExpired, workingLive, completedFree, inputRequired, otherAgent]);

        const claimed = await ctx.store().claimOrphanedTasks(LIVE, 'replica-1', now, now + TTL, 10);
        expect(claimed.map((t) => t.task.id)).toEqual([submittedExpired.task.id, otherAgent.task.id, workingFree.task.id]);
        for (const t of claimed) {
          expect(t).toMatchObject({ version: 2, lease: lease('replica-1', now + TTL) });
          const { previousLease: _previous, ...stored } = t;
          expect(await ctx.store().getTask(t.agentId, t.task.id)).toEqual(stored);
        }
        expect(await ctx.store().getTask('agent-a', workingLive.task.id)).toMatchObject({ version: 1, lease: lease('replica-2', now) });
        expect(await ctx.store().getTask('agent-a', completedFree.task.id)).not.toHaveProperty('lease');
        expect(await ctx.store().getTask('agent-a', inputRequired.task.id)).not.toHaveProperty('lease');
        // now held: a second sweep finds nothing
        expect(await ctx.store().claimOrphanedTasks(LIVE, 'replica-3', now, now + TTL, 10)).toEqual([]);
      });

      it('reports the lease each claim replaced (the replica that stopped), not the claimer (issue 19 C3)', async () => {
        const now = T0 + 100;
        const expired = leasedTask('dead-replica', { state: 'TASK_STATE_WORKING', time: T0 + 1, expiresAt: now - 1 });
        const free = newTask({ state: 'TASK_STATE_WORKING', time: T0 + 2 });
        await ctx.store().commit([expired, free]);
        const claimed = await ctx.store().claimOrphanedTasks(LIVE, 'replica-1', now, now + TTL, 10);
        expect(claimed.map((t) => [t.task.id, t.previousLease ?? null, t.lease?.owner])).toEqual([
          [expired.task.id, lease('dead-replica', now - 1), 'replica-1'],
          [free.task.id, null, 'replica-1'],
        ]);
      });

      it('claims at most `limit` tasks, the oldest', async () => {
        const commits = [4, 2, 5, 1, 3].map((i) => newTask({ state: 'TASK_STATE_WORKING', time: T0 + i }));
        await ctx.store().commit(commits);
        const first = await ctx.store().claimOrphanedTasks(LIVE, 'replica-1', T0, T0 + TTL, 2);
        expect(first.map((t) => t.createdAt)).toEqual([T0 + 1, T0 + 2]);
        const rest = await ctx.store().claimOrphanedTasks(LIVE, 'replica-1', T0, T0 + TTL, 10);
        expect(rest.map((t) => t.createdAt)).toEqual([T0 + 3, T0 + 4, T0 + 5]);
      });

      it('claims nothing for no states or a zero limit', async () => {
        await ctx.store().commit([newTask({ state: 'TASK_STATE_WORKING' })]);
        expect(await ctx.store().claimOrphanedTasks([], 'replica-1', T0, T0 + TTL, 10)).toEqual([]);
        expect(await ctx.store().claimOrphanedTasks(LIVE, 'replica-1', T0, T0 + TTL, 0)).toEqual([]);
      });
    });
  });
}
