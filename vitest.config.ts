import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/support/longest-first.js';

/**
 * The suite in two halves (issue 26): `unit` runs first and in process (no server, process or
 * browser started: a store on the local PostgreSQL or Redis is fine); `system` holds everything
 * that starts one (a server on loopback, a child process, Chromium, a cluster). `npm test` runs
 * `unit`, then `system`. A new test file belongs to `system` unless it is listed here.
 */
const UNIT = [
  'test/protocol/**/*.test.ts',
  'test/config/**/*.test.ts',
  'test/cli/usage/**/*.test.ts',
  'test/agents/mcp-remote/config.test.ts',
  'test/agents/mcp-remote/tool-call-request.test.ts',
  'test/agents/sdk/mcp-tools.test.ts',
  'test/agents/table-expert/eval-judge.test.ts',
  'test/agents/table-expert/planner-trust.test.ts',
  'test/auth/challenge.test.ts',
  'test/auth/oauth/login-throttle.test.ts',
  'test/auth/oauth/oauth-store.test.ts',
  'test/auth/oauth/sessions-migration.test.ts',
  'test/auth/per-public-url.test.ts',
  'test/auth/sessions/session-grants.test.ts',
  'test/bindings/a2a-grpc/codec.test.ts',
  'test/bindings/a2a-grpc/service-parameters.test.ts',
  'test/bindings/a2a-legacy/jsonrpc.test.ts',
  'test/bindings/mcp/answer.test.ts',
  'test/bindings/mcp/contributed-tools.test.ts',
  'test/bindings/mcp/edge-checks.test.ts',
  'test/bindings/mcp/lenient-edge.test.ts',
  'test/bindings/mcp/mcp-face.test.ts',
  'test/bindings/mcp/tool-annotations.test.ts',
  'test/bindings/mcp/tool-result.test.ts',
  'test/bus/in-process-bus.test.ts',
  'test/bus/redis-bus-metrics.test.ts',
  'test/bus/redis/ordered-subscription.test.ts',
  'test/cli/audit.test.ts',
  'test/cli/db.test.ts',
  'test/cli/init.test.ts',
  'test/cli/live-view.test.ts',
  'test/cli/program.test.ts',
  'test/client/responses.test.ts',
  'test/core/authz/agent-lookup.test.ts',
  'test/core/authz/resolve.test.ts',
  'test/core/authz/policy-audit.test.ts',
  'test/core/authz/serve-flags.test.ts',
  'test/core/authz/usage-visibility.test.ts',
  'test/core/execution/agent-run.test.ts',
  'test/core/execution/run-supervisor.test.ts',
  'test/core/pipeline.test.ts',
  'test/core/keys/key-store-shared.test.ts',
  'test/core/keys/key-store.test.ts',
  'test/core/quotas/monthly-spend.test.ts',
  'test/core/quotas/quota-book.test.ts',
  'test/core/quotas/quota-engine.test.ts',
  'test/core/tasks/engine-send.test.ts',
  'test/core/tasks/engine-tasks.test.ts',
  'test/core/tasks/page-token.test.ts',
  'test/core/usage/call-observers.test.ts',
  'test/core/usage/recorder-on-stores.test.ts',
  'test/edge/call-usage.test.ts',
  'test/edge/path-prefix.test.ts',
  'test/net/ssrf-guard.test.ts',
  'test/observability/keyed-instruments.test.ts',
  'test/observability/packed-spans.test.ts',
  'test/observability/tracing-settings.test.ts',
  'test/server/dev-reload-audit.test.ts',
  'test/server/management/csv.test.ts',
  'test/server/management/usage-params.test.ts',
  'test/store/audit-store.test.ts',
  'test/store/group-commit-postgres.test.ts',
  'test/store/group-commit.test.ts',
  'test/store/postgres-planner-statistics.test.ts',
  'test/store/postgres.test.ts',
  'test/store/sqlite.test.ts',
  'test/store/task-counts-postgres.test.ts',
  'test/store/usage/usage-histogram.test.ts',
  'test/store/usage/usage-query.test.ts',
];

export default defineConfig({
  test: {
    // All log output of the run is searched for secrets at its end (issue 14).
    globalSetup: ['test/support/log-secrets-check.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: true,
    // Most system files wait on sockets, child processes and timers, not on the CPU: three at a
    // time keep a 2-core machine busy where vitest's default (cores - 1) ran them one by one.
    maxWorkers: 3,
    // The longest files start first (test/durations.json), so none is left running alone at the end.
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT } },
      { extends: true, test: { name: 'system', include: ['test/**/*.test.ts'], exclude: UNIT } },
    ],
  },
});
