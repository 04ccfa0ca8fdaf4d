/**
 * The SQL schema as Kysely sees it: one interface per table, column names as in the database.
 * Migrations create exactly these tables; the stores read and write them through these types.
 *
 * JSON documents are stored as text on both dialects: they are written once per commit and read
 * back whole, never queried inside, so one `JSON.stringify` per object is all the database costs.
 * Epoch-millisecond columns are `bigint`; the PostgreSQL store parses int8 back into numbers.
 */
import type { Generated } from 'kysely';

export interface TasksTable {
  /** task ids are unique across agents; events and push configs key on the task id alone */
  id: string;
  agent_id: string;
  owner: string;
  context_id: string;
  state: string;
  /** epoch ms of task.status.timestamp: the ListTasks sort key */
  status_time: number;
  created_at: number;
  /** last event seq applied to the projection */
  seq: number;
  version: number;
  /** the full Task (history and artifacts included) as JSON */
  task: string;
  /** the replica whose executor runs the task (distributed mode); null when none holds it */
  lease_owner: string | null;
  /** epoch ms; set exactly when lease_owner is */
  lease_expires_at: number | null;
  /** messageId of the message that created the task; unique per (agent_id, owner); null for older rows */
  origin_message_id: string | null;
  /** W3C traceparent of the span the task was created in (tracing on); null otherwise */
  trace_parent?: string | null;
  /** the caller a resumable run acts for, JSON (StoredTask.caller); null for other tasks */
  caller?: string | null;
  /**
   * The events of the commit that made the task terminal, in ADR 0050's referring form, when they
   * are here rather than in task_events (migration 0027, ADR 0057; SQLite commits only); else null.
   */
  final_events?: string | null;
  /**
   * The task's usage record (migration 0023, store/usage/task-usage-columns.ts): the UsageRecord
   * fields the task row does not already hold; `usage_time` null when the task has none. Read
   * through the usage_records_all view, never with the task.
   */
  usage_time?: number | null;
  usage_final?: number | null;
  usage_started_at?: number | null;
  usage_replica?: string | null;
  usage_face?: string | null;
  usage_operation?: string | null;
  usage_skill?: string | null;
  usage_tool?: string | null;
  /** null when the subject is the task's owner */
  usage_subject?: string | null;
  usage_client_id?: string | null;
  usage_key_id?: string | null;
  usage_usecase?: string | null;
  usage_remote_subject?: string | null;
  usage_remote_issuer?: string | null;
  usage_duration_ms?: number | null;
  usage_bytes_in?: number | null;
  usage_model?: string | null;
  usage_prompt_tokens?: number | null;
  usage_completion_tokens?: number | null;
  usage_cached_tokens?: number | null;
  usage_cost?: number | string | null;
}

/** The answer's timing of a task's usage record, written after the answer (migration 0023). */
export interface TaskUsageTimingTable {
  /** the task id */
  id: string;
  ttfb_ms: number | null;
  latency_ms: number | null;
  bytes_in: number | null;
  bytes_out: number | null;
}

/**
 * One row per commit, not per event: a commit's events are consecutive, so a row holds seqs
 * first_seq..seq and the events themselves as a JSON array of [createdAt, TaskEventPayload].
 * (One row instead of three for a typical task measured ~20% less SQLite work per commit.)
 */
export interface TaskEventsTable {
  task_id: string;
  /** the last seq in the row: the key, so `seq > n` finds every row holding an event after n */
  seq: number;
  first_seq: number;
  events: string;
  created_at: number;
}

export interface PushConfigsTable {
  task_id: string;
  id: string;
  agent_id: string;
  owner: string;
  /** TaskPushNotificationConfig as JSON */
  config: string;
  created_at: number;
}

export interface PushOutboxTable {
  id: Generated<number>;
  task_id: string;
  config_id: string;
  seq: number;
  /** StreamResponse as JSON */
  payload: string;
  /** defaults to 0 */
  attempts: Generated<number>;
  next_attempt_at: number;
  lease_until: number | null;
  last_error: string | null;
  created_at: number;
}

export interface SigningKeysTable {
  /** RFC 7638 thumbprint of the public key */
  kid: string;
  /** 1 for the first key, +1 per rotation; unique */
  generation: number;
  /** the private JWK (RFC 7517) as JSON */
  private_jwk: string;
  created_at: number;
}

/** oidc-provider records (src/store/oauth-store.ts) */
export interface OAuthRecordsTable {
  model: string;
  id: string;
  payload: string;
  grant_id: string | null;
  uid: string | null;
  account_id: string | null;
  expires_at: number | null;
  consumed_at: number | null;
  revoked_at: number | null;
}

export interface UsersTable {
  username: string;
  password_hash: string;
  scopes: string;
  created_at: number;
}

/** sign-in sessions (src/store/session-store.ts) */
export interface SessionsTable {
  id: string;
  /** the account id (subject): a local username or `<issuer>#<subject>` */
  username: string;
  purpose: string;
  created_at: number;
  expires_at: number;
  /** migration 0015: the OAuth grant the session stands on */
  grant_id: string | null;
  /** migration 0015: JSON array, the grant's scopes for an account with no local user row */
  scopes: string | null;
  /** migration 0015: the usecase a token sign-in is bound to */
  usecase: string | null;
}

/** migration 0018: the token vault (src/store/remote-token-store.ts); tokens are sealed */
export interface RemoteTokensTable {
  subject: string;
  remote: string;
  access_token: string;
  refresh_token: string | null;
  token_type: string;
  scope: string | null;
  expires_at: number | null;
  issuer: string | null;
  client: string | null;
  remote_subject: string | null;
  connected_at: number;
  refreshed_at: number | null;
  last_used_at: number | null;
  version: number;
  refresh_until: number | null;
}

/** usage records (src/store/usage/): one row per call or task; booleans are 0/1 */
export interface UsageRecordsTable {
  id: string;
  kind: string;
  time: number;
  started_at: number;
  final: number;
  replica: string;
  face: string;
  operation: string;
  agent: string | null;
  skill: string | null;
  tool: string | null;
  task_id: string | null;
  context_id: string | null;
  subject: string | null;
  client_id: string | null;
  key_id: string | null;
  usecase: string | null;
  /** who the call acted as at a remote, and who vouches for it (migration 0022) */
  remote_subject: string | null;
  remote_issuer: string | null;
  outcome: string;
  error: number;
  ttfb_ms: number | null;
  latency_ms: number | null;
  duration_ms: number | null;
  bytes_in: number | null;
  bytes_out: number | null;
  model: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  /** of prompt_tokens, read from a prompt cache (migration 0020) */
  cached_tokens: number;
  /** numeric: PostgreSQL returns it as a string */
  cost: number | string;
}

/** The scalar metrics of both rollup tables. */
interface UsageRollupMetrics {
  calls: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  cost: number | string;
  bytes_in: number;
  bytes_out: number;
  lat_count: number;
  lat_min: number | null;
  lat_max: number | null;
  dur_count: number;
  dur_sum: number;
  dur_min: number | null;
  dur_max: number | null;
}

interface UsageRollupDimensions {
  kind: string;
  agent: string | null;
  skill: string | null;
  tool: string | null;
  subject: string | null;
  client_id: string | null;
  key_id: string | null;
  usecase: string | null;
  face: string;
  operation: string;
  outcome: string;
  /** migration 0022 */
  remote_subject: string | null;
  remote_issuer: string | null;
}

/**
 * Hourly rollup of final usage records, one row per hour and combination of dimensions; the
 * histogram columns (`lat_le_NN`, `dur_le_NN`) are cumulative counts, see usage/usage-histogram.ts.
 */
export type UsageHourlyTable = { hour: number } & UsageRollupDimensions & UsageRollupMetrics & Record<`lat_le_${string}` | `dur_le_${string}`, number>;

/**
 * usage_hourly aggregated per UTC day (migration 0011): the histograms as one text column each
 * (HistogramText in usage/usage-histogram.ts), null without values.
 */
export type UsageDailyTable = { day: number } & UsageRollupDimensions & UsageRollupMetrics & { lat_hist: string | null; dur_hist: string | null };

/** the rollup watermarks: rows 'hourly' and 'daily' */
export interface UsageRollupStateTable {
  id: string;
  rolled_until: number;
}

/**
 * PostgreSQL only (migration 0014): an agent + owner's task count, spread over a few `shard` rows
 * that the commit statement adds to; the count is the sum of the rows.
 */
export interface TaskCountsTable {
  agent_id: string;
  owner: string;
  shard: number;
  n: number;
}

export interface Database {
  tasks: TasksTable;
  task_counts: TaskCountsTable;
  task_events: TaskEventsTable;
  push_configs: PushConfigsTable;
  push_outbox: PushOutboxTable;
  signing_keys: SigningKeysTable;
  oauth_records: OAuthRecordsTable;
  users: UsersTable;
  sessions: SessionsTable;
  remote_tokens: RemoteTokensTable;
  usage_records: UsageRecordsTable;
  task_usage_timing: TaskUsageTimingTable;
  /** a view (migration 0023): usage_records' call records and the task records of `tasks`, alike */
  usage_records_all: UsageRecordsTable;
  usage_hourly: UsageHourlyTable;
  usage_daily: UsageDailyTable;
  usage_rollup_state: UsageRollupStateTable;
}
