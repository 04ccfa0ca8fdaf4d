/**
 * The module groups mutation testing covers (issue 30): where a silent bug costs money, access or
 * trust. Each group names the sources Stryker mutates and the unit-level test files that cover
 * them; `npm run mutate [group…]` runs one group at a time (docs/testing.md has the scores).
 *
 * Tests are the fast ones beside each module (in process, real SQLite/PostgreSQL/Redis where the
 * module is a store), not the whole-server suites: Stryker runs the covering tests once per mutant.
 */
import { readFileSync } from 'node:fs';

/**
 * `file:a-b` for Stryker: from the line holding `from` to the first line after it holding `to`
 * (`to` may start with a newline to match a line's start). Throws when either is missing, so a
 * renamed method fails the run instead of mutating whatever now sits on the old lines.
 */
function linesOf(file, from, to) {
  const text = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
  const start = text.indexOf(from);
  if (start < 0) throw new Error(`mutation groups: "${from}" not found in ${file}`);
  const end = text.indexOf(to, start + from.length);
  if (end < 0) throw new Error(`mutation groups: "${to}" not found after "${from}" in ${file}`);
  const lineAt = (offset) => text.slice(0, offset).split('\n').length;
  const last = to.startsWith('\n') ? lineAt(end + 1) : lineAt(end);
  return `${file}:${lineAt(start)}-${last}`;
}

export const GROUPS = {
  authz: {
    mutate: ['src/core/authz/policy.ts', 'src/core/authz/own-api-keys.ts', 'src/core/authz/scopes.ts', 'src/core/stages/surface.ts'],
    // in process; the whole-server counterparts (surfaces.test.ts, test/bindings/management/own-api-key-standing.test.ts) are too slow per mutant
    tests: [
      'test/core/authz/policy-decisions.test.ts',
      'test/core/authz/policy-from-config.test.ts',
      'test/core/authz/own-api-keys.test.ts',
      'test/core/stages/surface-stage.test.ts',
      'test/core/authz/policy-audit.test.ts',
      'test/core/authz/usage-visibility.test.ts',
    ],
  },
  usage: {
    mutate: ['src/core/usage/task-usage.ts', 'src/core/usage/usage-recorder.ts', 'src/core/quotas/usage-spend.ts'],
    // in process; the whole-server usage tests (reported-usage, usage-records) are too slow per mutant
    tests: [
      'test/core/usage/task-usage-row.test.ts',
      'test/core/usage/usage-recorder-queue.test.ts',
      'test/core/quotas/usage-spend.test.ts',
      'test/core/usage/call-observers.test.ts',
      'test/core/usage/recorder-on-stores.test.ts',
    ],
  },
  'task-usage': {
    // a task's billing record in its task row (migration 0023): which columns a later commit sets,
    // keeps, adds up (tokens, cost) or fills; the store contract on SQLite checks each rule
    mutate: ['src/store/usage/task-usage-columns.ts'],
    tests: ['test/store/sqlite.test.ts', 'test/store/postgres.test.ts'],
  },
  quotas: {
    // the quota stage (core/stages) with the engine; usage-spend.ts, in core/quotas, is the usage group's
    mutate: ['src/core/quotas/*.ts', '!src/core/quotas/usage-spend.ts', 'src/core/stages/quota-handler.ts', 'src/bus/local-quota-counters.ts', 'src/bus/redis/redis-quota-counters.ts'],
    tests: ['test/core/quotas/*.test.ts', 'test/core/stages/quota-stage.test.ts', 'test/bus/quota-counters.test.ts', 'test/bus/local-quota-counters.test.ts', 'test/bus/redis/redis-quota-counters.test.ts'],
  },
  audit: {
    mutate: ['src/store/audit-chain.ts', 'src/core/audit/audit-log.ts'],
    tests: ['test/store/audit-chain.test.ts', 'test/core/audit/audit-log.test.ts', 'test/core/audit/audit-log-queue.test.ts'],
  },
  sessions: {
    mutate: ['src/auth/sessions/*.ts', 'src/auth/oauth/consent-grants.ts'],
    // in process on a real SQLite store; consent-grants.test.ts (sign-in, consent and revoke on a server) is too slow per mutant
    tests: ['test/auth/sessions/*.test.ts', 'test/auth/oauth/consent-grant-records.test.ts'],
  },
  edge: {
    mutate: ['src/edge/body.ts'],
    // the reader on a node:http server; the whole-server boundary test (body-limit.test.ts) is too slow per mutant
    tests: ['test/edge/body-reader.test.ts', 'test/edge/body.test.ts'],
  },
  'sql-guard': {
    mutate: ['src/agents/table-expert/sql/guard.ts'],
    // in process, on DuckDB's own parse tree; guard.test.ts (a running Table Expert, hostile statements
    // that run into the time limit when a mutant lets them through) took over an hour per run
    tests: ['test/agents/table-expert/guard-stages.test.ts'],
  },
  'table-expert': {
    mutate: ['src/agents/table-expert/planner/compile.ts', 'src/agents/table-expert/planner/joins.ts'],
    tests: ['test/agents/table-expert/planner/*.test.ts'],
  },
  idempotency: {
    // SendMessage idempotency (issue 19 C1, issue 25 C1a): the lookups by messageId (PostgreSQL
    // coalesced, SQLite's statement), the retried-task and "starting" paths of the intake, and the
    // service's answers to a retry. Line ranges (the rest of those files is not this behaviour), found
    // by the code they hold so that edits above them do not move the mutants onto other code.
    mutate: [
      'src/store/postgres/message-id-lookups.ts',
      linesOf('src/store/sqlite/sqlite-store.ts', 'selectTaskByMessage: compileWithSlots(', "['agent_id', 'owner', 'origin_message_id'],"),
      linesOf('src/store/sqlite/sqlite-store.ts', 'override async findTaskByMessageId(', '  }'),
      linesOf('src/core/tasks/message-intake.ts', 'awaitStarting(ctx: CallContext', 'awaitRetried(t:'),
      linesOf('src/core/tasks/message-intake.ts', 'const key = !existing && this.d.deduplicates', 'const entry ='),
      linesOf('src/core/tasks/message-intake.ts', 'class LeavingStarting', '\n}'),
      linesOf('src/core/tasks/task-service.ts', 'const retried = await this.intake.retriedTask(ctx, req);', 'const prepared = retried ?'),
      linesOf('src/core/tasks/task-service.ts', 'if (retried) return this.streamRetried', 'return this.subscribeToTask(ctx, { id: task.id })'),
    ],
    // the engine in process on SQLite (one engine, and two replicas over one file and bus); the HTTP counterparts (idempotency.test.ts, retry-before-first-event.test.ts) start a server per file
    tests: ['test/store/postgres/message-id-lookups.test.ts', 'test/core/tasks/engine-idempotency.test.ts', 'test/core/tasks/engine-idempotency-replicas.test.ts'],
  },
  'oauth-paths': {
    mutate: ['src/auth/oauth-paths.ts', 'src/auth/oauth/protected-resource-metadata.ts', 'src/auth/oauth/resources.ts'],
    tests: ['test/auth/oauth/protected-resource-metadata.test.ts', 'test/auth/oauth/resources.test.ts', 'test/auth/per-public-url.test.ts'],
  },
};

/** The group named by MUTATE_GROUP (set by scripts/mutation/run.mjs). */
export function currentGroup() {
  const name = process.env.MUTATE_GROUP;
  const group = name ? GROUPS[name] : undefined;
  if (!group) throw new Error(`MUTATE_GROUP must name one of: ${Object.keys(GROUPS).join(', ')} (got ${name ?? 'nothing'})`);
  return { name, ...group };
}
