/**
 * The billed row of a task (src/core/usage/task-usage.ts), in process: when a commit carries one,
 * and what it says. Prices below are hand-computed from the configured cost (per call once, on the
 * first commit; per token for what was reported since the last write), not by the module.
 */
import { describe, expect, it } from 'vitest';
import type { SkillCostConfig } from '../../../src/config/usage-schema.js';
import { addReported, taskUsageRow, type TaskUsagePolicy, type TaskUsageState } from '../../../src/core/usage/task-usage.js';
import { UsageDraft } from '../../../src/core/usage/usage-draft.js';
import type { Task, TaskState } from '../../../src/protocol/a2a/types.js';

const PRICES: Record<string, SkillCostConfig> = {
  'llm/chat': { perCall: 2, perPromptToken: 0.01, perCompletionToken: 0.03 },
  'llm/': { perCall: 1 },
};
const policy: TaskUsagePolicy = { replica: 'r1', cost: (agent, skill) => PRICES[`${agent}/${skill ?? ''}`] };

const task = (state: TaskState): Task => ({ id: 'task-1', contextId: 'ctx-1', status: { state } }) as Task;
const at = (state: TaskState) => ({ task: task(state), agentId: 'llm', owner: 'owner-1', createdAt: 1_000 });

function draft(): UsageDraft {
  const d = new UsageDraft('a2a-jsonrpc/1.0', 900);
  d.operation = 'SendStreamingMessage';
  d.subject = 'alice';
  d.skill = 'chat';
  d.keyId = 'k1';
  d.clientId = 'c1';
  d.usecase = 'u1';
  d.tool = 't1';
  d.bytesIn = 42;
  return d;
}

describe('taskUsageRow', () => {
  it('the first commit carries the row: per-call price, the draft’s caller and dimensions, dated at its start', () => {
    const s: TaskUsageState = { draft: draft() };
    const row = taskUsageRow(s, at('TASK_STATE_WORKING'), true, 5_000, policy);
    expect(row).toEqual({
      id: 'task-1',
      kind: 'task',
      time: 900,
      startedAt: 900,
      final: false,
      replica: 'r1',
      face: 'a2a-jsonrpc/1.0',
      operation: 'SendStreamingMessage',
      agent: 'llm',
      taskId: 'task-1',
      contextId: 'ctx-1',
      subject: 'alice',
      outcome: 'TASK_STATE_WORKING',
      error: false,
      promptTokens: 0,
      completionTokens: 0,
      cost: 2,
      skill: 'chat',
      tool: 't1',
      clientId: 'c1',
      keyId: 'k1',
      usecase: 'u1',
      bytesIn: 42,
    });
    expect(s.written).toBe('TASK_STATE_WORKING');
  });

  it('nothing changed for billing: no row (still working, nothing reported, not first)', () => {
    const s: TaskUsageState = { draft: draft(), written: 'TASK_STATE_WORKING' };
    expect(taskUsageRow(s, at('TASK_STATE_WORKING'), false, 5_000, policy)).toBeUndefined();
    expect(s.written).toBe('TASK_STATE_WORKING');
    // a change of state that is not a rest (submitted → working) writes nothing either
    const moved: TaskUsageState = { draft: draft(), written: 'TASK_STATE_SUBMITTED' };
    expect(taskUsageRow(moved, at('TASK_STATE_WORKING'), false, 5_000, policy)).toBeUndefined();
    expect(moved.written).toBe('TASK_STATE_SUBMITTED');
  });

  it('coming to rest writes once per state; the same resting state again writes nothing', () => {
    const s: TaskUsageState = { draft: draft(), written: 'TASK_STATE_WORKING' };
    const paused = taskUsageRow(s, at('TASK_STATE_INPUT_REQUIRED'), false, 5_000, policy);
    expect(paused).toMatchObject({ outcome: 'TASK_STATE_INPUT_REQUIRED', final: false, time: 900, cost: 0 });
    expect(paused && 'durationMs' in paused).toBe(false);
    expect(taskUsageRow(s, at('TASK_STATE_INPUT_REQUIRED'), false, 6_000, policy)).toBeUndefined();
    const auth = taskUsageRow(s, at('TASK_STATE_AUTH_REQUIRED'), false, 6_500, policy);
    expect(auth?.outcome).toBe('TASK_STATE_AUTH_REQUIRED');
  });

  it('a terminal commit is final, dated now, with the duration from creation; a failure is an error', () => {
    const s: TaskUsageState = { draft: draft(), written: 'TASK_STATE_WORKING' };
    const done = taskUsageRow(s, at('TASK_STATE_FAILED'), false, 7_500, policy);
    expect(done).toMatchObject({ final: true, time: 7_500, startedAt: 900, durationMs: 6_500, outcome: 'TASK_STATE_FAILED', error: true, cost: 0 });
    const s2: TaskUsageState = { draft: draft(), written: 'TASK_STATE_WORKING' };
    expect(taskUsageRow(s2, at('TASK_STATE_CANCELED'), false, 7_500, policy)).toMatchObject({ final: true, error: false, durationMs: 6_500 });
    const s3: TaskUsageState = { draft: draft(), written: 'TASK_STATE_WORKING' };
    expect(taskUsageRow(s3, at('TASK_STATE_COMPLETED'), false, 8_000, policy)).toMatchObject({ final: true, error: false, time: 8_000 });
  });

  it('reported tokens are priced since the last write and then cleared; the per-call price only on the first commit; the last model wins', () => {
    const s: TaskUsageState = { draft: draft(), written: 'TASK_STATE_WORKING' };
    addReported(s, { model: 'm-1', promptTokens: 100, completionTokens: 10 });
    addReported(s, { model: 'm-2', promptTokens: 50, completionTokens: 20 });
    const row = taskUsageRow(s, at('TASK_STATE_WORKING'), false, 5_000, policy);
    // 150 × 0.01 + 30 × 0.03 = 1.5 + 0.9
    expect(row).toMatchObject({ promptTokens: 150, completionTokens: 30, model: 'm-2' });
    expect(row?.cost).toBeCloseTo(2.4, 10);
    expect(s.pending).toBeUndefined();
    expect(taskUsageRow(s, at('TASK_STATE_WORKING'), false, 5_000, policy)).toBeUndefined();
    const first: TaskUsageState = { draft: draft() };
    addReported(first, { promptTokens: 10, completionTokens: 1 });
    // 2 + 10 × 0.01 + 1 × 0.03
    expect(taskUsageRow(first, at('TASK_STATE_WORKING'), true, 5_000, policy)?.cost).toBeCloseTo(2.13, 10);
  });

  it('cached prompt tokens reported since the last write are in the row; none reported, no column', () => {
    const s: TaskUsageState = { draft: draft(), written: 'TASK_STATE_WORKING' };
    addReported(s, { promptTokens: 100, completionTokens: 10, cachedTokens: 30 });
    addReported(s, { promptTokens: 50, completionTokens: 5, cachedTokens: 70 });
    // the second report's cached tokens are capped at its 50 prompt tokens: 30 + 50
    expect(taskUsageRow(s, at('TASK_STATE_WORKING'), false, 5_000, policy)).toMatchObject({ promptTokens: 150, cachedTokens: 80 });
    addReported(s, { promptTokens: 10, completionTokens: 1 });
    const row = taskUsageRow(s, at('TASK_STATE_WORKING'), false, 5_000, policy);
    expect(row && 'cachedTokens' in row).toBe(false);
  });

  it('a skill without token prices charges no tokens; an unpriced agent charges nothing; no model, no model column', () => {
    const d = draft();
    d.skill = undefined;
    const s: TaskUsageState = { draft: d };
    addReported(s, { promptTokens: 1000, completionTokens: 1000 });
    const row = taskUsageRow(s, at('TASK_STATE_WORKING'), true, 5_000, policy);
    expect(row?.cost).toBe(1);
    expect(row && 'model' in row).toBe(false);
    const other = { ...at('TASK_STATE_WORKING'), agentId: 'echo' };
    const s2: TaskUsageState = { draft: draft() };
    addReported(s2, { promptTokens: 1000, completionTokens: 1000 });
    expect(taskUsageRow(s2, other, true, 5_000, policy)?.cost).toBe(0);
  });

  it('a task reloaded without its draft: priced by the follow-up’s skill, dated at creation, owner as subject, columns unknown', () => {
    const s: TaskUsageState = { skill: 'chat', written: 'TASK_STATE_INPUT_REQUIRED' };
    addReported(s, { promptTokens: 10 });
    const row = taskUsageRow(s, at('TASK_STATE_COMPLETED'), false, 9_000, policy);
    expect(row).toMatchObject({ face: 'unknown', operation: 'SendMessage', subject: 'owner-1', startedAt: 1_000, time: 9_000, durationMs: 8_000, promptTokens: 10, completionTokens: 0 });
    expect(row?.cost).toBeCloseTo(0.1, 10);
    expect(row && 'skill' in row).toBe(false);
    const running: TaskUsageState = { skill: 'chat' };
    expect(taskUsageRow(running, at('TASK_STATE_WORKING'), true, 9_000, policy)).toMatchObject({ time: 1_000, startedAt: 1_000, cost: 2 });
  });
});
