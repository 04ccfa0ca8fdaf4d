/**
 * The answer of `GET /api/v1/usage` in its three formats. JSON: the query as understood, the
 * groups and (when known) the caller's quotas. NDJSON: one group per line, the same objects. CSV:
 * one row per group with a header row; the grouped dimensions first, then the metrics, in
 * snake_case columns so that spreadsheets and `COPY … CSV HEADER` take it as it is.
 */
import type { UsageDimension, UsageGroup, UsageQuery } from '../../store/usage-record.js';
import { csvRecord, spreadsheetSafe, type CsvCell } from './csv.js';

/** What remains of one quota for the caller (issue 13 item 4). */
export interface QuotaStanding {
  quotaId: string;
  /** e.g. 'requests', 'concurrentTasks', 'monthlyTokens', 'monthlyCost' */
  kind: string;
  limit: number;
  remaining: number;
  /** ISO 8601 time the quota is replenished; absent for a quota without a window (concurrent tasks) */
  resetAt?: string;
}

export interface UsageGroupView {
  key: Partial<Record<UsageDimension, string | null>>;
  /** the UTC start of the time bucket, when the query had one */
  bucketStart?: string;
  calls: number;
  errors: number;
  errorRate: number;
  latencyMs: { p50: number; p95: number; p99: number } | null;
  durationMs: { p50: number; p95: number; p99: number; avg: number } | null;
  promptTokens: number;
  completionTokens: number;
  /** of promptTokens, read from a prompt cache */
  cachedTokens: number;
  /** prompt + completion */
  tokens: number;
  cost: number;
  bytesIn: number;
  bytesOut: number;
}

export interface UsageAnswer {
  from: string;
  to: string;
  groupBy: UsageDimension[];
  bucket?: string;
  /** the subject the answer is limited to, when the caller reads only its own usage */
  subject?: string;
  limit: number;
  groups: UsageGroupView[];
  quotas?: Array<Required<Omit<QuotaStanding, 'resetAt'>> & { resetAt: string | null }>;
}

export function groupView(g: UsageGroup): UsageGroupView {
  return {
    key: g.key,
    ...(g.bucketStart === undefined ? {} : { bucketStart: new Date(g.bucketStart).toISOString() }),
    calls: g.calls,
    errors: g.errors,
    errorRate: g.errorRate,
    latencyMs: g.latencyMs,
    durationMs: g.durationMs,
    promptTokens: g.promptTokens,
    completionTokens: g.completionTokens,
    cachedTokens: g.cachedTokens,
    tokens: g.promptTokens + g.completionTokens,
    cost: g.cost,
    bytesIn: g.bytesIn,
    bytesOut: g.bytesOut,
  };
}

export function jsonAnswer(q: UsageQuery, groups: readonly UsageGroup[], o: { subject?: string; quotas?: readonly QuotaStanding[] }): UsageAnswer {
  return {
    from: new Date(q.from).toISOString(),
    to: new Date(q.to).toISOString(),
    groupBy: [...q.groupBy],
    ...(q.bucket ? { bucket: q.bucket } : {}),
    ...(o.subject === undefined ? {} : { subject: o.subject }),
    limit: q.limit ?? groups.length,
    groups: groups.map(groupView),
    ...(o.quotas ? { quotas: o.quotas.map((x) => ({ quotaId: x.quotaId, kind: x.kind, limit: x.limit, remaining: x.remaining, resetAt: x.resetAt ?? null })) } : {}),
  };
}

export function ndjsonAnswer(groups: readonly UsageGroup[]): string {
  return groups.map((g) => `${JSON.stringify(groupView(g))}\n`).join('');
}

/** The metric columns of the CSV, after the dimensions (and `bucket_start`). */
export const CSV_METRIC_COLUMNS = [
  'calls',
  'errors',
  'error_rate',
  'latency_p50_ms',
  'latency_p95_ms',
  'latency_p99_ms',
  'duration_p50_ms',
  'duration_p95_ms',
  'duration_p99_ms',
  'duration_avg_ms',
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'tokens',
  'cost',
  'bytes_in',
  'bytes_out',
] as const;

export function csvAnswer(q: UsageQuery, groups: readonly UsageGroup[]): string {
  const header = [...q.groupBy, ...(q.bucket ? ['bucket_start'] : []), ...CSV_METRIC_COLUMNS];
  const rows = groups.map((g) => {
    const cells: CsvCell[] = q.groupBy.map((d) => spreadsheetSafe(g.key[d]));
    if (q.bucket) cells.push(g.bucketStart === undefined ? null : new Date(g.bucketStart).toISOString());
    const l = g.latencyMs;
    const d = g.durationMs;
    cells.push(g.calls, g.errors, g.errorRate, l?.p50, l?.p95, l?.p99, d?.p50, d?.p95, d?.p99, d?.avg);
    cells.push(g.promptTokens, g.completionTokens, g.cachedTokens, g.promptTokens + g.completionTokens, g.cost, g.bytesIn, g.bytesOut);
    return csvRecord(cells);
  });
  return csvRecord(header) + rows.join('');
}
