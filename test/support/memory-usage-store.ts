/**
 * A UsageStore over an array, computing exact groups from the raw records: the other end of the
 * seam `GET /api/v1/usage` and `agentport usage` read through, for tests of the route and the CLI
 * (the SQL store has its own contract tests). Percentiles are nearest-rank; rollups and pruning
 * are not modelled beyond dropping old records.
 */
import type { Percentiles, UsageDimension, UsageGroup, UsageQuery, UsageRecord, UsageTimeBucket } from '../../src/store/usage-record.js';
import type { UsageStore } from '../../src/store/usage-store.js';

const FIELD: Record<UsageDimension, (r: UsageRecord) => string | undefined> = {
  agent: (r) => r.agent,
  skill: (r) => r.skill,
  tool: (r) => r.tool,
  subject: (r) => r.subject,
  client: (r) => r.clientId,
  key: (r) => r.keyId,
  usecase: (r) => r.usecase,
  face: (r) => r.face,
  operation: (r) => r.operation,
  outcome: (r) => r.outcome,
  kind: (r) => r.kind,
  remoteSubject: (r) => r.remoteSubject,
  remoteIssuer: (r) => r.remoteIssuer,
};

export function bucketStart(time: number, bucket: UsageTimeBucket): number {
  const d = new Date(time);
  if (bucket === 'month') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  if (bucket === 'day') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  return Math.floor(time / 3_600_000) * 3_600_000;
}

function nearestRank(sorted: number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function percentiles(values: number[]): Percentiles | null {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  return { p50: nearestRank(s, 50), p95: nearestRank(s, 95), p99: nearestRank(s, 99) };
}

export class MemoryUsageStore implements UsageStore {
  readonly records: UsageRecord[] = [];
  /** every query asked, for tests that check what the route sent */
  readonly queries: UsageQuery[] = [];

  async write(records: readonly UsageRecord[]): Promise<void> {
    for (const r of records) if (!this.records.some((x) => x.id === r.id)) this.records.push(r);
  }

  async query(q: UsageQuery): Promise<UsageGroup[]> {
    this.queries.push(q);
    const groups = new Map<string, { key: UsageGroup['key']; bucketStart?: number; rows: UsageRecord[] }>();
    for (const r of this.records) {
      if (r.time < q.from || r.time >= q.to) continue;
      const pass = Object.entries(q.filters).every(([d, values]) => (values as (string | null)[]).includes(FIELD[d as UsageDimension](r) ?? null));
      if (!pass) continue;
      const key: UsageGroup['key'] = {};
      for (const d of q.groupBy) key[d] = FIELD[d](r) ?? null;
      const start = q.bucket ? bucketStart(r.time, q.bucket) : undefined;
      const id = JSON.stringify([key, start]);
      const g = groups.get(id) ?? { key, ...(start === undefined ? {} : { bucketStart: start }), rows: [] };
      g.rows.push(r);
      groups.set(id, g);
    }
    const out = [...groups.values()].map(({ key, bucketStart: start, rows }): UsageGroup => {
      const errors = rows.filter((r) => r.error).length;
      const durations = rows.flatMap((r) => (r.kind === 'task' && r.durationMs !== undefined ? [r.durationMs] : []));
      const d = percentiles(durations);
      const sum = (f: (r: UsageRecord) => number | undefined) => rows.reduce((a, r) => a + (f(r) ?? 0), 0);
      return {
        key,
        ...(start === undefined ? {} : { bucketStart: start }),
        calls: rows.length,
        errors,
        errorRate: rows.length ? errors / rows.length : 0,
        latencyMs: percentiles(rows.flatMap((r) => (r.latencyMs === undefined ? [] : [r.latencyMs]))),
        durationMs: d ? { ...d, avg: durations.reduce((a, b) => a + b, 0) / durations.length } : null,
        promptTokens: sum((r) => r.promptTokens),
        completionTokens: sum((r) => r.completionTokens),
        cachedTokens: sum((r) => r.cachedTokens),
        cost: sum((r) => r.cost),
        bytesIn: sum((r) => r.bytesIn),
        bytesOut: sum((r) => r.bytesOut),
      };
    });
    out.sort((a, b) => b.calls - a.calls || (a.bucketStart ?? 0) - (b.bucketStart ?? 0));
    return out.slice(0, q.limit ?? 1000);
  }

  async rollup(): Promise<number> {
    return 0;
  }

  async prune(before: number): Promise<number> {
    const keep = this.records.filter((r) => r.time >= before);
    const gone = this.records.length - keep.length;
    this.records.splice(0, this.records.length, ...keep);
    return gone;
  }
}

let seq = 0;

/** A final call record with the defaults a test does not care about. */
export function usageRecord(over: Partial<UsageRecord> & { time: number }): UsageRecord {
  seq += 1;
  return {
    id: `rec-${seq}`,
    kind: 'call',
    startedAt: over.time,
    final: true,
    replica: 'r1',
    face: 'a2a-jsonrpc/1.0',
    operation: 'SendMessage',
    outcome: 'OK',
    error: false,
    promptTokens: 0,
    completionTokens: 0,
    cost: 0,
    ...over,
  };
}
