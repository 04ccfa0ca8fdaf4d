/**
 * A task's usage record in its task row (migration 0023, ADR 0016's revision): the `usage_*`
 * columns of `tasks`, the values a commit binds to them, and how a later commit merges into them.
 * Shared by both dialects' commit paths. Reads never come here: they select the
 * usage_records_all view, which rebuilds the record's other fields from the task row itself.
 */
import type { UsageRecord } from '../usage-record.js';

/** The usage columns of `tasks`, in the order taskUsageValues binds them. */
export const TASK_USAGE_COLUMNS = [
  'usage_time',
  'usage_final',
  'usage_started_at',
  'usage_replica',
  'usage_face',
  'usage_operation',
  'usage_skill',
  'usage_tool',
  'usage_subject',
  'usage_client_id',
  'usage_key_id',
  'usage_usecase',
  'usage_remote_subject',
  'usage_remote_issuer',
  'usage_duration_ms',
  'usage_bytes_in',
  'usage_model',
  'usage_prompt_tokens',
  'usage_completion_tokens',
  'usage_cached_tokens',
  'usage_cost',
] as const;

export type TaskUsageColumn = (typeof TASK_USAGE_COLUMNS)[number];

/**
 * How a commit's value meets the stored one when the task already has a record (the rule the
 * separate row's upsert had): `set` takes the new value; `keep` keeps what the first write stored
 * (a task picked up from a replica that died has no draft; its first commit wrote these); `add`
 * adds up (tokens, cost); `fill` takes the new value when it has one.
 */
export const TASK_USAGE_MERGE: Readonly<Record<TaskUsageColumn, 'set' | 'keep' | 'add' | 'fill'>> = {
  usage_time: 'set',
  usage_final: 'set',
  usage_started_at: 'keep',
  usage_replica: 'keep',
  usage_face: 'keep',
  usage_operation: 'keep',
  usage_skill: 'keep',
  usage_tool: 'keep',
  usage_subject: 'keep',
  usage_client_id: 'keep',
  usage_key_id: 'keep',
  usage_usecase: 'keep',
  usage_remote_subject: 'fill',
  usage_remote_issuer: 'fill',
  usage_duration_ms: 'set',
  usage_bytes_in: 'fill',
  usage_model: 'fill',
  usage_prompt_tokens: 'add',
  usage_completion_tokens: 'add',
  usage_cached_tokens: 'add',
  usage_cost: 'add',
};

/**
 * The SQL of one column's merge, `value` being the commit's value and `stored` the row's (both
 * SQL expressions). In an UPDATE every right-hand side reads the row as it was, so `keep` tests
 * the stored `usage_time` even though the same statement sets it.
 */
export function mergedUsageSql(column: TaskUsageColumn, value: string, stored: (c: string) => string): string {
  switch (TASK_USAGE_MERGE[column]) {
    case 'set':
      return value;
    case 'keep':
      return `case when ${stored('usage_time')} is null then ${value} else ${stored(column)} end`;
    case 'add':
      return `coalesce(${stored(column)}, 0) + ${value}`;
    case 'fill':
      return `coalesce(${value}, ${stored(column)})`;
  }
}

/**
 * A task record's values in TASK_USAGE_COLUMNS order. The subject is stored only when it is not
 * the task's owner (it is the owner for nearly every task: one string less to bind). Written out
 * rather than mapped, like usageRowValues: every task commit binds one.
 */
export function taskUsageValues(r: UsageRecord, owner: string): unknown[] {
  const values: unknown[] = [];
  putTaskUsageValues(values, 0, r, owner);
  return values;
}

/**
 * taskUsageValues written into `out` from index `at` (at most its length, so a packed array stays
 * packed); returns the index after them. The SQLite commit's plan takes them in place (no array of
 * their own, no copy into the plan: commit-batch.ts).
 */
export function putTaskUsageValues(out: unknown[], at: number, r: UsageRecord, owner: string): number {
  out[at] = r.time;
  out[at + 1] = r.final ? 1 : 0;
  out[at + 2] = r.startedAt;
  out[at + 3] = r.replica;
  out[at + 4] = r.face;
  out[at + 5] = r.operation;
  out[at + 6] = r.skill ?? null;
  out[at + 7] = r.tool ?? null;
  out[at + 8] = r.subject === owner ? null : (r.subject ?? null);
  out[at + 9] = r.clientId ?? null;
  out[at + 10] = r.keyId ?? null;
  out[at + 11] = r.usecase ?? null;
  out[at + 12] = r.remoteSubject ?? null;
  out[at + 13] = r.remoteIssuer ?? null;
  out[at + 14] = r.durationMs ?? null;
  out[at + 15] = r.bytesIn ?? null;
  out[at + 16] = r.model ?? null;
  out[at + 17] = r.promptTokens;
  out[at + 18] = r.completionTokens;
  out[at + 19] = r.cachedTokens ?? 0;
  out[at + 20] = r.cost;
  return at + 21;
}

/** What of a task record goes to task_usage_timing in the commit itself (nearly never: the edge amends it after the answer). */
export function commitTiming(r: UsageRecord): { ttfbMs?: number; latencyMs?: number; bytesOut?: number } | undefined {
  if (r.ttfbMs === undefined && r.latencyMs === undefined && r.bytesOut === undefined) return undefined;
  return { ttfbMs: r.ttfbMs, latencyMs: r.latencyMs, bytesOut: r.bytesOut };
}
