/**
 * The fence inside one replica (ADR 0070), the chaos test's "duplicated" defect (chunks
 * 1,2,2,3,3,4,7,8 of a resumable `slow 8`): a replica whose own lease on a task lapsed while the
 * task's executor still ran here (a stalled process, a database outage past the TTL) claims the
 * task back in its orphan sweep and resumes it. The claim's working copy replaced the running one,
 * and the old executor, never stopped, appended to the new copy: its commits carried this
 * replica's lease and the new copy's version, so the store's fence could not tell them from the
 * resumed run's, and each chunk was stored twice. (A later resume counts the parts it finds,
 * duplicates included, and starts past them: the missing 5 and 6.)
 *
 * In process: one task engine in distributed mode over a real SQLite file; the agent takes a step
 * each time the test opens the gate, so both executors (when two run) take theirs together.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SendMessageResponse, Task } from '../../../src/protocol/a2a/types.js';
import { defineAgent } from '../../../src/agents/sdk/agent.js';
import { startEngine, until, userMessage, type Engine } from './engine-harness.js';

const CLUSTER = { replicaId: 'replica-a', leaseTtlMs: 60_000, sweepIntervalMs: 60_000 };

/** A gate every waiting executor passes at once, each time the test opens it. */
class Gate {
  private next = Gate.closed();
  passed(): Promise<void> {
    return this.next.promise;
  }
  open(): void {
    const current = this.next;
    this.next = Gate.closed();
    current.resolve();
  }
  private static closed(): { promise: Promise<void>; resolve: () => void } {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    return { promise, resolve };
  }
}

interface RunRecord {
  resumed: boolean;
  aborted: boolean;
}

/** `slow <n>`: one `chunk <i>` part per step, continuing after the parts already in the task (resumable). */
function slowAgent(gate: Gate, runs: RunRecord[]) {
  return defineAgent({
    card: { name: 'slow', description: 'one chunk per step', capabilities: { streaming: true }, skills: [] },
    resumable: true,
    async execute(ctx) {
      const run: RunRecord = { resumed: ctx.resumed === true, aborted: false };
      runs.push(run);
      ctx.signal.addEventListener('abort', () => (run.aborted = true), { once: true });
      const n = Number(/^slow (\d+)$/.exec(ctx.text())![1]);
      const stored = ctx.task?.artifacts?.find((a) => a.name === 'chunks');
      let artifactId = stored?.artifactId;
      if (!run.resumed) ctx.working();
      for (let i = (stored?.parts.length ?? 0) + 1; i <= n; i++) {
        await gate.passed();
        if (ctx.signal.aborted) return;
        artifactId = ctx.artifact(`chunk ${i}`, artifactId ? { artifactId, append: true } : { name: 'chunks' });
      }
      ctx.complete();
    },
  });
}

const chunksOf = (task: Task | undefined): string[] => (task?.artifacts ?? []).flatMap((a) => a.parts.map((p) => p.text ?? '?'));

let engine: Engine | undefined;
afterEach(async () => {
  await engine?.dispose();
  engine = undefined;
});

describe('a replica claiming back a task its executor still runs (ADR 0070)', () => {
  it('stops the old executor: the resumed run alone writes, each chunk once', async () => {
    const gate = new Gate();
    const runs: RunRecord[] = [];
    engine = await startEngine({ slow: slowAgent(gate, runs) }, {}, { cluster: CLUSTER });
    const e = engine;
    const answer: SendMessageResponse = await e.service.sendMessage(e.ctx('slow'), { message: userMessage('slow 4'), configuration: { returnImmediately: true } });
    if (!('task' in answer)) throw new Error('expected a task');
    const id = answer.task.id;
    const stored = async () => (await e.store.getTask('slow', id))!;

    gate.open();
    await until(async () => chunksOf((await stored()).task).length === 1, 'chunk 1 stored');
    expect((await stored()).lease?.owner).toBe(CLUSTER.replicaId);

    // The replica's lease lapses while its executor still runs (it stalled past the TTL); nobody
    // else took the task, so this replica's own sweep finds it orphaned and claims it back.
    expect(await e.store.renewLeases(CLUSTER.replicaId, [id], 1)).toEqual([id]);
    expect(await e.service.sweepOrphans()).toBe(1);
    await until(() => runs.length === 2, 'the resumed run started');
    expect(runs.map((r) => r.resumed)).toEqual([false, true]);

    for (let step = 2; step <= 4; step++) {
      gate.open();
      await until(async () => chunksOf((await stored()).task).length >= step, `chunk ${step} stored`);
    }
    await until(async () => (await stored()).task.status.state === 'TASK_STATE_COMPLETED', 'the task completed');
    const want = ['chunk 1', 'chunk 2', 'chunk 3', 'chunk 4'];
    expect(chunksOf((await stored()).task)).toEqual(want);
    // The log holds each chunk once too (what a resubscribing client replays).
    const logged = (await e.store.readEvents(id, 0)).flatMap((r) => ('artifactUpdate' in r.event ? r.event.artifactUpdate.artifact.parts.map((p) => p.text ?? '?') : []));
    expect(logged).toEqual(want);
    expect(runs[0]!.aborted, 'the executor of the replaced copy was stopped').toBe(true);
  });
});
