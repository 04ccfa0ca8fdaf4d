/** The analytics API's answer (`GET /api/v1/usage`, src/bindings/management/usage-export.ts). */
export const DIMENSIONS = ['agent', 'skill', 'tool', 'subject', 'client', 'key', 'usecase', 'face', 'operation', 'outcome', 'kind'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

export interface UsageGroup {
  key: Partial<Record<Dimension, string | null>>;
  bucketStart?: string;
  calls: number;
  errors: number;
  errorRate: number;
  latencyMs: { p50: number; p95: number; p99: number } | null;
  tokens: number;
  cost: number;
}

export interface UsageAnswer {
  from: string;
  to: string;
  groupBy: Dimension[];
  subject?: string;
  groups: UsageGroup[];
}
