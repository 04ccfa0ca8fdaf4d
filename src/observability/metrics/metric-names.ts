/**
 * The name of every metric Agentport exports, as Prometheus shows it. The dashboard and the alert
 * rules in deploy/observability/ use these names; a test reads both and checks each name against a
 * running server's /metrics, so a rename here shows up there.
 */
export const METRIC = {
  info: 'agentport_info',
  requests: 'agentport_requests_total',
  a2aDuration: 'agentport_a2a_operation_duration_seconds',
  /** OpenTelemetry's MCP convention, `mcp.server.operation.duration` in seconds */
  mcpDuration: 'mcp_server_operation_duration_seconds',
  tasksStarted: 'agentport_tasks_started_total',
  tasksFinished: 'agentport_tasks_finished_total',
  tasksRunning: 'agentport_tasks_running',
  openStreams: 'agentport_open_streams',
  pushDeliveries: 'agentport_push_deliveries_total',
  outboxDepth: 'agentport_push_outbox_depth',
  outboxAge: 'agentport_push_outbox_oldest_age_seconds',
  commitDuration: 'agentport_store_commit_duration_seconds',
  commitBatch: 'agentport_store_commit_batch_size',
  busLag: 'agentport_bus_delivery_lag_seconds',
  leasesHeld: 'agentport_cluster_leases_held',
  forwarded: 'agentport_cluster_forwarded_messages_total',
  orphansRecovered: 'agentport_cluster_orphans_recovered_total',
  quotaRefusals: 'agentport_quota_refusals_total',
  /** usage records and timing amends dropped because the queue to the store was full (usage.queueLimit) */
  usageDropped: 'agentport_usage_records_dropped_total',
  /** spans dropped because the queue to the span export thread was full (OTEL_BSP_MAX_QUEUE_SIZE, 8,192 by default) */
  spansDropped: 'agentport_trace_spans_dropped_total',
  /** per-user OAuth to remotes (ADR 0035): access tokens refreshed, and refreshes that failed */
  remoteTokenRefreshes: 'agentport_remote_token_refreshes_total',
  remoteTokenRefreshFailures: 'agentport_remote_token_refresh_failures_total',
} as const;
