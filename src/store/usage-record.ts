/**
 * A usage record: one per call on every face, and for a call that created a task, one per task
 * (written with the task's events, so a task is billed exactly once). The record shape is shared by
 * the producers (the edge and the core), the usage store and the analytics API.
 */

/** What the analytics API can group and filter by (besides time buckets). */
export const USAGE_DIMENSIONS = ['agent', 'skill', 'tool', 'subject', 'client', 'key', 'usecase', 'face', 'operation', 'outcome', 'kind', 'remoteSubject', 'remoteIssuer'] as const;
export type UsageDimension = (typeof USAGE_DIMENSIONS)[number];

export const USAGE_TIME_BUCKETS = ['hour', 'day', 'month'] as const;
export type UsageTimeBucket = (typeof USAGE_TIME_BUCKETS)[number];

export interface UsageRecord {
  /** the task id for kind 'task'; a fresh UUIDv7 for kind 'call' */
  id: string;
  /** 'task': the record of a call that created a task, finished by the task's terminal event; 'call': anything else */
  kind: 'task' | 'call';
  /**
   * epoch ms the record is dated at, and the hour it rolls up into: a call's end; a task's terminal
   * commit once final, its creation until then. Rollups only take final records, so a closed hour
   * never changes.
   */
  time: number;
  /** epoch ms the call arrived (a task: the call that created it) */
  startedAt: number;
  /** false only for a task still running (its outcome is its current state) */
  final: boolean;
  /** the replica that wrote the record */
  replica: string;
  /** binding and protocol version: 'a2a-jsonrpc/1.0', 'a2a-rest/0.3', 'a2a-grpc/1.0', 'a2a-jsonrpc/0.1', 'mcp/2025-11-25', 'mcp-compat', 'novaeden', 'management', 'oauth', 'cards' */
  face: string;
  /** A2A method ('SendMessage'), MCP method ('tools/call', 'resources/read'), or 'METHOD /route/pattern' for REST routes */
  operation: string;
  agent?: string;
  skill?: string;
  /** the MCP tool name, on MCP tool calls */
  tool?: string;
  taskId?: string;
  contextId?: string;
  subject?: string;
  /** OAuth client id of the access token */
  clientId?: string;
  /** API key id (`ap_<keyId>_…`), or `config:<subject>` for a key written in the config file */
  keyId?: string;
  usecase?: string;
  /**
   * Who the call acted as at a remote (issue 27): the user's subject there, as the remote's token
   * says (`auth: oauth`), or the caller's subject Agentport signed for it (`signed-identity`).
   * Never a token.
   */
  remoteSubject?: string;
  /** who vouches for `remoteSubject`: the remote's authorization server, or Agentport itself for a signed identity */
  remoteIssuer?: string;
  /** final task state ('TASK_STATE_COMPLETED'), the error reason ('TASK_NOT_FOUND', 'QUOTA_EXCEEDED'), or 'OK' / 'HTTP_<status>' */
  outcome: string;
  error: boolean;
  /** ms from arrival to the first byte of the answer */
  ttfbMs?: number;
  /** ms from arrival to the end of the answer */
  latencyMs?: number;
  /** a task: ms from creation to its terminal state */
  durationMs?: number;
  bytesIn?: number;
  bytesOut?: number;
  /** LLM usage an agent reported (ctx.reportUsage); on a task row written more than once, added up */
  model?: string;
  /** every prompt token, cached ones included */
  promptTokens: number;
  completionTokens: number;
  /** of promptTokens, those read from the provider's prompt cache (absent: none) */
  cachedTokens?: number;
  /** cost units from config (agents[].skills[id].cost); on a task row written more than once, added up */
  cost: number;
}

/**
 * What the edge learns after a task record was committed: the answer's timing and size, written
 * best effort (through the call queue) onto the task's record.
 */
export interface UsageAmend {
  id: string;
  ttfbMs?: number;
  latencyMs?: number;
  bytesIn?: number;
  bytesOut?: number;
}

export interface UsageQuery {
  /** dimensions to group by, in order; empty: one group of everything */
  groupBy: readonly UsageDimension[];
  /** time bucket as an extra grouping (UTC) */
  bucket?: UsageTimeBucket;
  /** each listed dimension matches any of its values; `null` in a list matches an absent value */
  filters: Partial<Record<UsageDimension, readonly (string | null)[]>>;
  /** epoch ms, inclusive */
  from: number;
  /** epoch ms, exclusive */
  to: number;
  /** at most this many groups, largest `calls` first (default 1000) */
  limit?: number;
}

export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
}

export interface UsageGroup {
  /** the grouped dimensions' values (null: absent) */
  key: Partial<Record<UsageDimension, string | null>>;
  /** epoch ms start of the time bucket, when the query had one */
  bucketStart?: number;
  calls: number;
  errors: number;
  /** errors / calls, 0 when no calls */
  errorRate: number;
  /** of records with a latency; null when none */
  latencyMs: Percentiles | null;
  /** of task records with a duration; null when none */
  durationMs: (Percentiles & { avg: number }) | null;
  promptTokens: number;
  completionTokens: number;
  /** of promptTokens, those read from a prompt cache */
  cachedTokens: number;
  cost: number;
  bytesIn: number;
  bytesOut: number;
}
