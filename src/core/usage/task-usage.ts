/**
 * The usage record of a task, written by the task log in the same commit as the task's events
 * (TaskCommit.usage): on the first commit, whenever the task comes to rest (an interrupted or
 * terminal state) and when LLM usage was reported since the last write. The commit's fencing gives
 * one writer per task, and the store upserts by task id, so a task is billed exactly once however
 * often it is written, and a kill -9 can lose or repeat nothing the client was told.
 */
import type { SkillCostConfig } from '../../config/usage-schema.js';
import { isInterrupted, isTerminal, type Task } from '../../protocol/a2a/types.js';
import type { UsageRecord } from '../../store/usage-record.js';
import type { UsageReport } from '../agents/agent-definition.js';
import { tokenCost } from './token-cost.js';
import { addReport, copyDraftFields, copyReportedFields, type ReportedUsage, type UsageDraft } from './usage-draft.js';

export interface TaskUsagePolicy {
  /** the replica writing */
  readonly replica: string;
  /** the configured cost of an agent's skill (`agents[].skills[id].cost`) */
  cost(agentId: string, skill: string | undefined): SkillCostConfig | undefined;
}

export type { ReportedUsage } from './usage-draft.js';

/** What a working copy of a task carries for its usage record. */
export interface TaskUsageState {
  /** the call that created the task, while this replica holds its draft */
  draft?: UsageDraft;
  /** the skill its tokens are priced by: the creating call's, else a follow-up's (a reloaded task has no draft) */
  skill?: string;
  /** the state the record was last written with */
  written?: string;
  /** reported since the last write */
  pending?: ReportedUsage;
}

/**
 * The row this commit carries, or undefined when nothing changed for billing. `first`: the task's
 * first commit. Clears the pending LLM usage it takes.
 */
export function taskUsageRow(s: TaskUsageState, t: { task: Task; agentId: string; owner: string; createdAt: number }, first: boolean, now: number, policy: TaskUsagePolicy): UsageRecord | undefined {
  const state = t.task.status.state;
  const terminal = isTerminal(state);
  const resting = terminal || isInterrupted(state);
  const pending = s.pending;
  if (!first && !pending && !(resting && state !== s.written)) return undefined;
  s.written = state;
  s.pending = undefined;
  const d = s.draft;
  const price = policy.cost(t.agentId, d?.skill ?? s.skill);
  const promptTokens = pending?.promptTokens ?? 0;
  const completionTokens = pending?.completionTokens ?? 0;
  const cost = (first ? (price?.perCall ?? 0) : 0) + tokenCost(price, pending);
  const startedAt = d?.startedAt ?? t.createdAt;
  const row: UsageRecord = {
    id: t.task.id,
    kind: 'task',
    time: terminal ? now : startedAt,
    startedAt,
    final: terminal,
    replica: policy.replica,
    // A task picked up from a replica that died has no draft here; its row exists since its first
    // commit, and the store keeps these columns as that commit wrote them.
    face: d?.face ?? 'unknown',
    operation: d?.operation ?? 'SendMessage',
    agent: t.agentId,
    taskId: t.task.id,
    contextId: t.task.contextId,
    subject: d?.subject ?? t.owner,
    outcome: state,
    error: state === 'TASK_STATE_FAILED',
    promptTokens,
    completionTokens,
    cost,
  };
  copyReportedFields(pending, row);
  if (terminal) row.durationMs = now - t.createdAt;
  if (d) copyDraftFields(d, row);
  return row;
}

/** Adds a report to what is pending on a task (tokens add up; the last model named wins). */
export function addReported(s: TaskUsageState, u: UsageReport): void {
  s.pending = addReport(s.pending, u);
}
