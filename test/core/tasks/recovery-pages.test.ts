/**
 * Start-up recovery reads cut-off tasks a page at a time (RECOVERY_PAGE). A resumed task stays
 * WORKING while its run goes on, so a page full of resumed tasks must not hide the tasks after it:
 * more than a page of cut-off resumable tasks are all resumed, and the others all failed.
 */
import { afterEach, expect, it } from 'vitest';
import { defineAgent } from '../../../src/agents/sdk/agent.js';
import { RECOVERY_PAGE } from '../../../src/core/tasks/engine-lifecycle.js';
import type { Task } from '../../../src/protocol/a2a/types.js';
import { agent, startEngine, until, type Engine } from './engine-harness.js';

let engine: Engine | undefined;
afterEach(async () => {
  await engine?.dispose();
  engine = undefined;
});

/** A task a crash left WORKING: its user message and its first event in the log, nothing after. */
function cutOff(agentId: string, i: number, createdAt: number) {
  const task: Task = {
    id: `${agentId}-${String(i).padStart(4, '0')}`,
    contextId: `ctx-${agentId}-${i}`,
    status: { state: 'TASK_STATE_WORKING', timestamp: new Date(createdAt).toISOString() },
    history: [{ messageId: `m-${agentId}-${i}`, role: 'ROLE_USER', parts: [{ text: `question ${i}` }] }],
  };
  return { agentId, owner: 'alice', task, expectedVersion: 0, seq: 1, events: [{ taskId: task.id, seq: 1, event: { task }, createdAt }], outbox: [], createdAt };
}

it('resumes every cut-off task of a resumable agent past the first page, and fails the others', async () => {
  const resumedIds = new Set<string>();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  engine = await startEngine({
    // Holds every resumed run until the test lets go, so each resumed task is still WORKING when
    // recovery reads the next page.
    holder: defineAgent({
      card: { name: 'holder', description: 'resumes and waits', capabilities: { streaming: true }, skills: [] },
      resumable: true,
      async execute(ctx) {
        if (ctx.resumed) resumedIds.add(ctx.taskId);
        await released;
        ctx.complete('resumed');
      },
    }),
    plain: agent((ctx) => ctx.complete('never runs')),
  });
  const resumable = RECOVERY_PAGE + 50;
  const plain = 30;
  const t0 = Date.now() - 60_000;
  // Several tasks share a creation time, so the pages must also order by id within one millisecond.
  const commits = [...Array.from({ length: resumable }, (_, i) => cutOff('holder', i, t0 + Math.floor(i / 3))), ...Array.from({ length: plain }, (_, i) => cutOff('plain', i, t0 + 100 + i))];
  for (let i = 0; i < commits.length; i += 100) await engine.store.commit(commits.slice(i, i + 100));

  expect(await engine.service.recoverOrphanedTasks()).toBe(resumable + plain);
  await until(() => resumedIds.size === resumable, `${resumable} resumed runs (got ${resumedIds.size})`);
  expect([...resumedIds].sort()).toEqual(commits.filter((c) => c.agentId === 'holder').map((c) => c.task.id));

  release();
  const store = engine.store;
  await until(async () => (await store.findTasksInStates(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'], 1000)).length === 0, 'every task at rest', 10_000);
  const states = await Promise.all(commits.map(async (c) => `${c.agentId}:${(await store.getTask(c.agentId, c.task.id))?.task.status.state}`));
  const tally: Record<string, number> = {};
  for (const s of states) tally[s] = (tally[s] ?? 0) + 1;
  expect(tally).toEqual({ 'holder:TASK_STATE_COMPLETED': resumable, 'plain:TASK_STATE_FAILED': plain });
}, 30_000);
