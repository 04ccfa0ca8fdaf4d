/**
 * UsageRecord ↔ usage_records row, and the names the analytics dimensions have in SQL. Shared by
 * both dialects, the commit path (TaskCommit.usage) and the usage store.
 */
import type { UsageDimension, UsageRecord } from '../usage-record.js';
import type { UsageRecordsTable } from '../schema.js';

/** The column of each dimension, in usage_records and usage_hourly alike. */
export const DIMENSION_COLUMN: Readonly<Record<UsageDimension, string>> = {
  agent: 'agent',
  skill: 'skill',
  tool: 'tool',
  subject: 'subject',
  client: 'client_id',
  key: 'key_id',
  usecase: 'usecase',
  face: 'face',
  operation: 'operation',
  outcome: 'outcome',
  kind: 'kind',
  remoteSubject: 'remote_subject',
  remoteIssuer: 'remote_issuer',
};

/** usage_records columns in the order usageRowValues binds them. */
export const USAGE_RECORD_COLUMNS = [
  'id',
  'kind',
  'time',
  'started_at',
  'final',
  'replica',
  'face',
  'operation',
  'agent',
  'skill',
  'tool',
  'task_id',
  'context_id',
  'subject',
  'client_id',
  'key_id',
  'usecase',
  'remote_subject',
  'remote_issuer',
  'outcome',
  'error',
  'ttfb_ms',
  'latency_ms',
  'duration_ms',
  'bytes_in',
  'bytes_out',
  'model',
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'cost',
] as const satisfies readonly (keyof UsageRecordsTable)[];

export function toUsageRow(r: UsageRecord): UsageRecordsTable {
  return {
    id: r.id,
    kind: r.kind,
    time: r.time,
    started_at: r.startedAt,
    final: r.final ? 1 : 0,
    replica: r.replica,
    face: r.face,
    operation: r.operation,
    agent: r.agent ?? null,
    skill: r.skill ?? null,
    tool: r.tool ?? null,
    task_id: r.taskId ?? null,
    context_id: r.contextId ?? null,
    subject: r.subject ?? null,
    client_id: r.clientId ?? null,
    key_id: r.keyId ?? null,
    usecase: r.usecase ?? null,
    remote_subject: r.remoteSubject ?? null,
    remote_issuer: r.remoteIssuer ?? null,
    outcome: r.outcome,
    error: r.error ? 1 : 0,
    ttfb_ms: r.ttfbMs ?? null,
    latency_ms: r.latencyMs ?? null,
    duration_ms: r.durationMs ?? null,
    bytes_in: r.bytesIn ?? null,
    bytes_out: r.bytesOut ?? null,
    model: r.model ?? null,
    prompt_tokens: r.promptTokens,
    completion_tokens: r.completionTokens,
    cached_tokens: r.cachedTokens ?? 0,
    cost: r.cost,
  };
}

/**
 * The row's values in USAGE_RECORD_COLUMNS order, for a positionally bound prepared statement.
 * Written out rather than mapped over toUsageRow: every task commit binds one, and the map's 31
 * keyed reads of a fresh object went megamorphic on the commit path (issue 26).
 */
export function usageRowValues(r: UsageRecord): unknown[] {
  return [
    r.id,
    r.kind,
    r.time,
    r.startedAt,
    r.final ? 1 : 0,
    r.replica,
    r.face,
    r.operation,
    r.agent ?? null,
    r.skill ?? null,
    r.tool ?? null,
    r.taskId ?? null,
    r.contextId ?? null,
    r.subject ?? null,
    r.clientId ?? null,
    r.keyId ?? null,
    r.usecase ?? null,
    r.remoteSubject ?? null,
    r.remoteIssuer ?? null,
    r.outcome,
    r.error ? 1 : 0,
    r.ttfbMs ?? null,
    r.latencyMs ?? null,
    r.durationMs ?? null,
    r.bytesIn ?? null,
    r.bytesOut ?? null,
    r.model ?? null,
    r.promptTokens,
    r.completionTokens,
    r.cachedTokens ?? 0,
    r.cost,
  ];
}

/** A stored row as a record (tests, exports); absent values are left out. */
export function fromUsageRow(row: UsageRecordsTable): UsageRecord {
  const opt = <K extends keyof UsageRecord>(key: K, v: UsageRecord[K] | null): Partial<UsageRecord> => (v === null || v === undefined ? {} : { [key]: v });
  const num = (v: number | string | null): number | null => (v === null ? null : Number(v));
  return {
    id: row.id,
    kind: row.kind as UsageRecord['kind'],
    time: Number(row.time),
    startedAt: Number(row.started_at),
    final: Number(row.final) === 1,
    replica: row.replica,
    face: row.face,
    operation: row.operation,
    ...opt('agent', row.agent),
    ...opt('skill', row.skill),
    ...opt('tool', row.tool),
    ...opt('taskId', row.task_id),
    ...opt('contextId', row.context_id),
    ...opt('subject', row.subject),
    ...opt('clientId', row.client_id),
    ...opt('keyId', row.key_id),
    ...opt('usecase', row.usecase),
    ...opt('remoteSubject', row.remote_subject),
    ...opt('remoteIssuer', row.remote_issuer),
    outcome: row.outcome,
    error: Number(row.error) === 1,
    ...opt('ttfbMs', num(row.ttfb_ms)),
    ...opt('latencyMs', num(row.latency_ms)),
    ...opt('durationMs', num(row.duration_ms)),
    ...opt('bytesIn', num(row.bytes_in)),
    ...opt('bytesOut', num(row.bytes_out)),
    ...opt('model', row.model),
    promptTokens: Number(row.prompt_tokens),
    completionTokens: Number(row.completion_tokens),
    ...(Number(row.cached_tokens) > 0 ? { cachedTokens: Number(row.cached_tokens) } : {}),
    cost: Number(row.cost),
  };
}
