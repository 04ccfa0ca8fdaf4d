/**
 * Replicas sharing one database, part of the Store contract: two store instances on the same
 * database (two Agentport processes) never take the same task lease or outbox entry, and a
 * task's push deliveries keep their order whichever replica sends them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OutboxEntry, Store, TaskCommit } from '../../src/store/store.js';
import { newTask, T0, update } from './fixtures.js';
import type { ContractContext } from './store-contract.js';

const TTL = 30_000;
const LIVE = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'] as const;

/** A task with `n` outbox entries (seq 1..n), each commit as its own batch: ids follow seqs. */
async function taskWithEntries(store: Store, n: number): Promise<string> {
  let c: TaskCommit = newTask({ outbox: [{ configId: 'x' }] });
  await store.commit([c]);
  for (let seq = 2; seq <= n; seq++) {
    c = update(c, { outboxConfigIds: ['x'], time: T0 });
    await store.commit([c]);
  }
  return c.task.id;
}

export function describeReplicasContract(ctx: ContractContext): void {
  const openPeer = ctx.options.openPeer;
  describe.skipIf(!openPeer)('two replicas on one database', () => {
    let peer: Store;
    beforeEach(async () => {
      peer = await openPeer!();
      await peer.migrate();
    });
    afterEach(async () => {
      await peer?.close();
    });

    it('sees what the other replica committed', async () => {
      const c = newTask();
      await ctx.store().commit([c]);
      expect((await peer.getTask(c.agentId, c.task.id))?.task).toEqual(c.task);
    });

    describe('task leases', () => {
      it('never lets two concurrent sweepers claim the same task', async () => {
        const commits = Array.from({ length: 60 }, (_, i) => newTask({ state: i % 2 ? 'TASK_STATE_WORKING' : 'TASK_STATE_SUBMITTED', time: T0 + i }));
        await ctx.store().commit(commits);
        const claimedBy = new Map<string, string[]>();
        const sweep = async (store: Store, owner: string): Promise<void> => {
          for (;;) {
            const got = await store.claimOrphanedTasks(LIVE, owner, T0, T0 + TTL, 4);
            if (got.length === 0) return;
            for (const t of got) {
              expect(t.lease?.owner).toBe(owner);
              claimedBy.set(t.task.id, [...(claimedBy.get(t.task.id) ?? []), owner]);
            }
          }
        };
        // three sweeps per replica at once, on separate connections where the dialect has a pool
        await Promise.all([sweep(ctx.store(), 'replica-1'), sweep(ctx.store(), 'replica-1'), sweep(ctx.store(), 'replica-1'), sweep(peer, 'replica-2'), sweep(peer, 'replica-2'), sweep(peer, 'replica-2')]);
        expect(claimedBy.size).toBe(60);
        for (const [, owners] of claimedBy) expect(owners).toHaveLength(1);
        for (const c of commits) {
          const stored = await peer.getTask(c.agentId, c.task.id);
          expect(stored?.version).toBe(2);
          expect(stored?.lease?.owner).toBe(claimedBy.get(c.task.id)?.[0]);
        }
      });

      it('gives a task to exactly one of two replicas claiming it at once', async () => {
        const commits = Array.from({ length: 20 }, () => newTask({ state: 'TASK_STATE_WORKING' }));
        await ctx.store().commit(commits);
        for (const c of commits) {
          const [a, b] = await Promise.all([ctx.store().claimTask(c.agentId, c.task.id, 'replica-1', T0, T0 + TTL), peer.claimTask(c.agentId, c.task.id, 'replica-2', T0, T0 + TTL)]);
          expect([a, b].filter((x) => x !== undefined)).toHaveLength(1);
          const winner = (a ?? b)!;
          expect(winner.version).toBe(2);
          expect(await ctx.store().getTask(c.agentId, c.task.id)).toEqual(winner);
        }
      });
    });

    describe('push outbox', () => {
      it('never hands the same entry to two replicas claiming at once', async () => {
        const commits = Array.from({ length: 40 }, () => newTask({ outbox: [{ configId: 'x' }] }));
        await ctx.store().commit(commits);
        const claims = await Promise.all([ctx.store().claimOutbox(T0, 6, TTL), peer.claimOutbox(T0, 6, TTL), ctx.store().claimOutbox(T0, 6, TTL), peer.claimOutbox(T0, 6, TTL)]);
        const ids = claims.flat().map((e) => e.id);
        expect(new Set(ids).size).toBe(ids.length);
        const rest = [...(await peer.claimOutbox(T0, 100, TTL)), ...(await ctx.store().claimOutbox(T0, 100, TTL))];
        expect(ids.length + rest.length).toBe(40);
        expect(new Set([...ids, ...rest.map((e) => e.id)]).size).toBe(40);
      });

      it("delivers each task's entries once and in order while two replicas share the work", async () => {
        const tasks: string[] = [];
        for (let i = 0; i < 8; i++) tasks.push(await taskWithEntries(ctx.store(), 4));
        const delivered: OutboxEntry[] = [];
        const deliver = async (store: Store): Promise<void> => {
          for (;;) {
            const got = await store.claimOutbox(T0, 3, TTL);
            if (got.length === 0) return;
            for (const e of got) {
              // recorded before markDelivered: the task's next entry is not claimable until then
              delivered.push(e);
              await store.markDelivered(e.id);
            }
          }
        };
        await Promise.all([deliver(ctx.store()), deliver(peer), deliver(ctx.store()), deliver(peer)]);
        expect(new Set(delivered.map((e) => e.id)).size).toBe(delivered.length);
        for (const id of tasks) {
          expect(delivered.filter((e) => e.taskId === id).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
        }
        expect(await ctx.store().countOutbox()).toBe(0);
      });

      it('hands an entry to the other replica once the lease of a claimer that died expires', async () => {
        const id = await taskWithEntries(ctx.store(), 2);
        const [head] = await ctx.store().claimOutbox(T0, 10, 1000);
        expect(head).toMatchObject({ taskId: id, seq: 1 });
        // the claimer dies without marking it: the task's entries wait for the lease
        expect(await peer.claimOutbox(T0 + 1000, 10, 1000)).toEqual([]);
        const [again, ...none] = await peer.claimOutbox(T0 + 1001, 10, 1000);
        expect(none).toEqual([]);
        expect(again).toEqual(head);
        await peer.markDelivered(again!.id);
        // a late markDelivered from the dead claimer's id touches nothing else
        await ctx.store().markDelivered(head!.id);
        const [next] = await peer.claimOutbox(T0 + 1002, 10, 1000);
        expect(next).toMatchObject({ taskId: id, seq: 2 });
      });
    });
  });
}
