import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/support/longest-first.js';

/**
 * The suite in three projects (issue 26; docs/testing.md, "Suite time"), run by `npm test` in
 * this order, each by its own `vitest run`:
 * - `unit`: in process, no server, process or browser started (a store on the local PostgreSQL or
 *   Redis is fine). Files share worker processes (--no-isolate).
 * - `system-shared` (SYSTEM_SHARED below): servers started in this process only, on loopback,
 *   and children the file ends itself (Chromium, a client tool run to its exit). Files share
 *   worker processes too (--no-isolate).
 * - `system`: every other file, each in a fresh process: a child process the test kills or keeps
 *   (the CLI, a replica, a private PostgreSQL or Redis), a container, a cluster.
 * A new test file belongs to `system` unless it is listed in UNIT or falls under SYSTEM_SHARED.
 */
const UNIT = [
  'test/core/copy-with.test.ts',
  'test/core/call-context.test.ts',
  'test/core/iso-timestamp.test.ts',
  'test/core/ids/uuid-v7.test.ts',
  'test/protocol/**/*.test.ts',
  'test/config/**/*.test.ts',
  'test/cli/usage/**/*.test.ts',
  'test/agents/mcp-remote/config.test.ts',
  'test/agents/mcp-remote/tool-call-request.test.ts',
  'test/agents/sdk/mcp-tools.test.ts',
  'test/agents/table-expert/eval-judge.test.ts',
  'test/agents/table-expert/planner-trust.test.ts',
  'test/agents/table-expert/planner/ask-before-declining.test.ts',
  'test/agents/table-expert/planner/counting-and-shape.test.ts',
  'test/agents/table-expert/planner/compile-shapes.test.ts',
  'test/agents/table-expert/planner/fanout-guard.test.ts',
  'test/agents/table-expert/planner/join-paths.test.ts',
  'test/agents/table-expert/engine/date-inference.test.ts',
  'test/agents/table-expert/engine/statement-runner.test.ts',
  'test/agents/table-expert/planner/semantic-and-words.test.ts',
  'test/agents/table-expert/guard-stages.test.ts',
  'test/auth/challenge.test.ts',
  'test/store/catalog-race.test.ts',
  'test/store/task-commit-rows.test.ts',
  'test/store/events-row-json.test.ts',
  'test/store/iso-time.test.ts',
  'test/store/credentials-generation.test.ts',
  'test/store/sqlite-commit-thread.test.ts',
  'test/store/sqlite-thread-death.test.ts',
  'test/auth/api-key-record-cache.test.ts',
  'test/auth/poll-turns.test.ts',
  'test/store/sqlite/statement-cache.test.ts',
  'test/store/sqlite/message-id-filter.test.ts',
  'test/auth/oauth/login-throttle.test.ts',
  'test/auth/oauth/oauth-store.test.ts',
  'test/auth/oauth/sessions-migration.test.ts',
  'test/auth/per-public-url.test.ts',
  'test/auth/oauth/resources.test.ts',
  'test/auth/sessions/session-grants.test.ts',
  'test/auth/sessions/console-sessions.test.ts',
  'test/auth/sessions/browser-form-tokens.test.ts',
  'test/auth/oauth/consent-grant-records.test.ts',
  'test/bindings/a2a-grpc/codec.test.ts',
  'test/bindings/a2a-grpc/service-parameters.test.ts',
  'test/bindings/a2a-legacy/jsonrpc.test.ts',
  'test/bindings/json-depth.test.ts',
  'test/bindings/json-content-type.test.ts',
  'test/bindings/a2a-jsonrpc/reply.test.ts',
  'test/bindings/mcp/answer.test.ts',
  'test/bindings/mcp/tools/contributed-tools.test.ts',
  'test/bindings/mcp/admission/edge-checks.test.ts',
  'test/bindings/mcp/admission/lenient-edge.test.ts',
  'test/bindings/mcp/transport/response-close.test.ts',
  'test/bindings/mcp/mcp-face.test.ts',
  'test/bindings/mcp/tools/tool-annotations.test.ts',
  'test/bindings/mcp/tools/tool-result.test.ts',
  'test/bus/in-process-bus.test.ts',
  'test/bus/redis-bus-metrics.test.ts',
  'test/bus/redis/ordered-subscription.test.ts',
  'test/bus/redis/lone-publisher.test.ts',
  'test/bus/redis/redis-quota-counters.test.ts',
  'test/bus/local-quota-counters.test.ts',
  'test/cli/audit.test.ts',
  'test/cli/db.test.ts',
  'test/cli/init.test.ts',
  'test/cli/live-view.test.ts',
  'test/cli/program.test.ts',
  'test/cli/dev-banner-command.test.ts',
  'test/docs/no-foreign-npx.test.ts',
  'test/docs/clients-doc.test.ts',
  'test/client/responses.test.ts',
  'test/client/lazy-transport.test.ts',
  'test/bench/options.test.ts',
  'test/bench/callgrind-split.test.ts',
  'test/core/authz/agent-lookup.test.ts',
  'test/core/stages/resolve.test.ts',
  'test/core/authz/policy-audit.test.ts',
  'test/core/authz/serve-flags.test.ts',
  'test/core/authz/usage-visibility.test.ts',
  'test/core/authz/policy-decisions.test.ts',
  'test/core/authz/policy-from-config.test.ts',
  'test/core/authz/own-api-keys.test.ts',
  'test/core/stages/surface-stage.test.ts',
  'test/core/execution/agent-run.test.ts',
  'test/core/execution/run-supervisor.test.ts',
  'test/core/pipeline.test.ts',
  'test/core/keys/key-store-shared.test.ts',
  'test/core/keys/key-store.test.ts',
  'test/core/quotas/monthly-spend.test.ts',
  'test/core/quotas/quota-book.test.ts',
  'test/core/quotas/quota-book-reads.test.ts',
  'test/core/quotas/quota-dimensions.test.ts',
  'test/core/quotas/quota-engine.test.ts',
  'test/core/quotas/quota-engine-edges.test.ts',
  'test/core/stages/quota-stage.test.ts',
  'test/core/tasks/engine-send.test.ts',
  'test/core/tasks/engine-idempotency.test.ts',
  'test/core/tasks/engine-idempotency-replicas.test.ts',
  'test/core/tasks/engine-tasks.test.ts',
  'test/core/tasks/cancel-across-replicas.test.ts',
  'test/core/tasks/inline-push-config-order.test.ts',
  'test/core/tasks/page-token.test.ts',
  'test/core/tasks/starting-messages.test.ts',
  'test/core/tasks/open-streams.test.ts',
  'test/core/tasks/recovery-pages.test.ts',
  'test/core/tasks/resume-seam.test.ts',
  'test/core/tasks/reclaimed-task-fence.test.ts',
  'test/core/tasks/read-what-is-stored.test.ts',
  'test/core/task-state/live-tasks.test.ts',
  'test/core/task-state/task-projection.test.ts',
  'test/edge/caller-admission.test.ts',
  'test/core/push/webhook-check.test.ts',
  'test/core/usage/call-observers.test.ts',
  'test/core/usage/recorder-on-stores.test.ts',
  'test/core/usage/task-usage-row.test.ts',
  'test/core/usage/usage-recorder-queue.test.ts',
  'test/core/usage/amend-queue.test.ts',
  'test/core/quotas/usage-spend.test.ts',
  'test/edge/call-usage.test.ts',
  'test/edge/body-reader.test.ts',
  'test/edge/path-prefix.test.ts',
  'test/memory/transient-map.test.ts',
  'test/memory/transient-multi-map.test.ts',
  'test/memory/weak-map-values.test.ts',
  'test/memory/written-json-survivors.test.ts',
  'test/memory/amend-queue-survivors.test.ts',
  'test/net/ssrf-guard.test.ts',
  'test/observability/keyed-instruments.test.ts',
  'test/observability/otlp-json.test.ts',
  'test/observability/otlp-json-keys.test.ts',
  'test/observability/otlp-time-and-keys.test.ts',
  'test/observability/packed-spans-writer.test.ts',
  'test/observability/recorded-spans.test.ts',
  'test/observability/root-context.test.ts',
  'test/observability/tracing-settings.test.ts',
  'test/server/dev-reload-audit.test.ts',
  'test/server/heap-settings.test.ts',
  'test/bindings/management/csv.test.ts',
  'test/bindings/management/usage-params.test.ts',
  'test/store/audit-store.test.ts',
  'test/store/group-commit-postgres.test.ts',
  'test/store/group-commit.test.ts',
  'test/store/postgres-planner-statistics.test.ts',
  'test/store/postgres/connection-options.test.ts',
  'test/store/postgres/record-rows-bytes.test.ts',
  'test/store/postgres.test.ts',
  'test/store/postgres-migrations.test.ts',
  'test/store/sqlite.test.ts',
  'test/store/sqlite-contract-commit-thread.test.ts',
  'test/store/sqlite-contract-memory.test.ts',
  'test/store/sqlite-reuse.test.ts',
  'test/store/task-counts-postgres.test.ts',
  'test/store/events-row-refs-migration.test.ts',
  'test/store/task-final-events.test.ts',
  'test/store/task-running-index-migration.test.ts',
  'test/store/task-inserts-migration.test.ts',
  'test/store/list-index-ascending-migration.test.ts',
  'test/store/task-usage-migration.test.ts',
  'test/store/usage/usage-histogram.test.ts',
  'test/store/usage/usage-query.test.ts',
  'test/store/wal-restarts.test.ts',
];

/**
 * The `system` files that start servers only in this process (no cluster, no private PostgreSQL or
 * Redis, no replica or CLI server the test kills) and put back what they change globally. A child
 * the file ends itself before its last hook returns is fine: a one-shot `openssl`, an interop tool
 * or framework client run to its exit, Chromium closed in `afterAll`. Such a file paid its imports
 * (the server's modules, Playwright) in a fresh process each in `system`: 8–25 s of collection a
 * file on a loaded 2-core machine, about a sixth of that project's worker time (docs/testing.md,
 * "Suite time"). A whole folder is listed where every file in it is such a file: a new
 * file there shares a process too, so it stops its servers and restores timers, spies, listeners
 * and environment variables; one that cannot goes to `system` by leaving this list (name the
 * folder's other files one by one).
 */
const SYSTEM_SHARED = [
  'test/agents/**/*.test.ts',
  'test/auth/oauth/**/*.test.ts',
  'test/bindings/a2a-common/**/*.test.ts',
  'test/bindings/a2a-grpc/**/*.test.ts',
  'test/bindings/a2a-legacy/**/*.test.ts',
  'test/bindings/cards/**/*.test.ts',
  'test/bindings/landing/**/*.test.ts',
  'test/bindings/management/**/*.test.ts',
  'test/bindings/mcp/admission/**/*.test.ts',
  'test/bindings/mcp/compat/**/*.test.ts',
  'test/bindings/mcp/surface/**/*.test.ts',
  'test/bindings/mcp/tasks/**/*.test.ts',
  'test/bindings/mcp/tools/**/*.test.ts',
  'test/bindings/mcp/transport/**/*.test.ts',
  'test/bindings/novaeden/**/*.test.ts',
  'test/bindings/openapi/**/*.test.ts',
  'test/client/**/*.test.ts',
  'test/core/**/*.test.ts',
  'test/docs/**/*.test.ts',
  'test/golden/**/*.test.ts',
  'test/net/**/*.test.ts',
  'test/observability/logging/**/*.test.ts',
  'test/store/postgres/**/*.test.ts',
  'test/auth/credentials.test.ts',
  'test/auth/grpc.test.ts',
  'test/auth/remote-oauth/**/*.test.ts',
  'test/bindings/connection-gone.test.ts',
  'test/bindings/mcp/conformance.test.ts',
  'test/bindings/mcp/eras.test.ts',
  'test/bindings/mcp/inspector-cli.test.ts',
  'test/bindings/mcp/invalid-params.test.ts',
  'test/bindings/mcp/legacy-cancel.test.ts',
  'test/bindings/mcp/malformed-input.test.ts',
  'test/bindings/quota-refusal.test.ts',
  'test/bindings/stream-resume.test.ts',
  'test/bus/quota-counters.test.ts',
  'test/bus/redis-bus.test.ts',
  'test/bus/redis-bus-lone.test.ts',
  'test/bus/redis-bus-pipelining.test.ts',
  'test/cli/a2a-client-commands.test.ts',
  'test/cli/connect-and-errors.test.ts',
  'test/cli/keys.test.ts',
  'test/cli/readable-answers.test.ts',
  'test/cli/usage.test.ts',
  'test/console/**/*.test.ts',
  'test/durability/recovery.test.ts',
  'test/edge/bad-input-5xx.test.ts',
  'test/server/healthz-restart-needed.test.ts',
  'test/server/stop-unused-connections.test.ts',
  'test/server/pages-in-chromium.test.ts',
  'test/edge/body-limit.test.ts',
  'test/edge/body.test.ts',
  'test/edge/edge.test.ts',
  'test/edge/malformed-input.test.ts',
  'test/edge/request-id-answers.test.ts',
  'test/edge/shared-admission.test.ts',
  'test/interop/a2a-js-client.test.ts',
  'test/interop/a2a-js-v03-client.test.ts',
  'test/interop/a2a-js-v03-compat.test.ts',
  'test/interop/card-signatures.test.ts',
  'test/interop/clients/framework-clients.test.ts',
  'test/observability/cluster-metrics.test.ts',
  'test/observability/dashboards.test.ts',
  'test/observability/metrics.test.ts',
  'test/observability/tracing-explicit-context.test.ts',
  'test/observability/tracing-export-failure.test.ts',
  'test/observability/tracing-probes.test.ts',
  'test/observability/otlp-http-exporter.test.ts',
  'test/observability/worker-span-exporter.test.ts',
  'test/server/audit-webhook.test.ts',
  'test/server/connection-reuse.test.ts',
  'test/server/dev-watch.test.ts',
  'test/server/distributed-startup.test.ts',
  'test/server/smoke.test.ts',
  'test/server/start-failure.test.ts',
  'test/store/api-key-standing.test.ts',
  'test/store/audit-chain.test.ts',
  'test/store/sqlite-damage.test.ts',
  'test/store/threads-under-eval.test.ts',
  'test/deploy/build-fingerprint.test.ts',
];

/**
 * `system` files (a fresh process each, as there) that `npm test` starts beside `system-shared`
 * instead of after it (scripts/test-run.sh). The scaffold's test is the longest of `system` and
 * mostly waits (npm, its child projects' `tsc` and tests: about a third of its wall on a core);
 * run with `system` it was that project's longest file, so the run's last minutes were it alone.
 * Beside `system-shared` its waiting fills that project's idle cores (docs/testing.md, "Suite time").
 */
const SYSTEM_EARLY = ['test/cli/init-scaffold.test.ts'];

export default defineConfig({
  test: {
    // All log output of the run is searched for secrets at its end (issue 14).
    globalSetup: ['test/support/log-secrets-check.ts'],
    // Each file's CPU, own and of the children it reaped, with its wall, appended as one JSON line a
    // file to the file this names (`node scripts/test-cpu.mjs <it>`; test/support/cpu-per-file.ts).
    setupFiles: process.env.AGENTPORT_CPU_PER_FILE ? ['test/support/cpu-per-file.ts'] : [],
    // Passwords are hashed at scrypt 2^10 instead of the product's 2^15 (src/auth/oauth/password-hash.ts,
    // honoured under vitest only, in the workers and the servers and CLIs they spawn): a server started
    // with authentication required and no users hashed its first admin's password, each sign-in and
    // created user hashed one, ~300 ms of CPU apiece on the loaded 2-core machine (issue 26,
    // docs/benchmarks.md "suite35"). test/auth/oauth/oauth-store.test.ts puts 2^15 back for the test of
    // the product's parameters; AGENTPORT_TEST_SCRYPT_LOG_N=15 in the environment measures the suite at it.
    env: { AGENTPORT_TEST_SCRYPT_LOG_N: process.env.AGENTPORT_TEST_SCRYPT_LOG_N ?? '10' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // `expect.poll` waits for an outcome that arrives asynchronously (a page section loaded, a log
    // line written). Vitest's 1 s default was shorter than a console page takes to fetch its
    // sections while three files with Chromium share two cores (CI, stop 38: three cards still
    // "Loading…"). A poll whose time is itself the point names its own timeout (readiness, kill -9).
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    fileParallelism: true,
    // Most system files wait on sockets, child processes and timers, not on the CPU: three at a
    // time keep a 2-core machine busy where vitest's default (cores - 1) ran them one by one.
    maxWorkers: 3,
    // The longest files start first (test/durations.json), so none is left running alone at the end.
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      // `npm test` runs `unit` and `system-shared` with --no-isolate --minWorkers=3 (`npm run
      // test:unit`, `npm run test:system-shared`): their files share three worker processes and
      // the modules loaded there instead of a fresh process each (about half the CPU, issue 26;
      // docs/testing.md, "Suite time"). So their tests put back what they change globally (fake
      // timers, spies, listeners, env) and stop what they start. A project's own `isolate` would
      // not do it: vitest takes the pool's isolation from the root config, hence one `vitest run`
      // per project.
      { extends: true, test: { name: 'unit', include: UNIT } },
      { extends: true, test: { name: 'system-shared', include: SYSTEM_SHARED, exclude: UNIT } },
      { extends: true, test: { name: 'system', include: ['test/**/*.test.ts'], exclude: [...UNIT, ...SYSTEM_SHARED, ...SYSTEM_EARLY] } },
      { extends: true, test: { name: 'system-early', include: SYSTEM_EARLY } },
    ],
  },
});
