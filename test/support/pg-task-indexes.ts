/**
 * A PostgreSQL migration's index side, for the migration tests that rebuild indexes on `tasks`:
 * the definitions read at the migration before, at the migration itself and back down again.
 */
import { randomBytes } from 'node:crypto';
import { type Kysely, type Migrator, sql } from 'kysely';
import { expect } from 'vitest';
import { migrateTo } from './migrate-to.js';

/** Index name → definition, of `tasks` in `schema`. */
export async function pgTaskIndexes(db: Kysely<unknown>, schema: string): Promise<Record<string, string>> {
  const { rows } = await sql<{ indexname: string; indexdef: string }>`select indexname, indexdef from pg_indexes where schemaname = ${schema} and tablename = 'tasks'`.execute(db);
  return Object.fromEntries(rows.map((r) => [r.indexname, r.indexdef]));
}

export interface TaskIndexesAcross {
  /** At the migration before the one under test. */
  before: Record<string, string>;
  /** At the migration under test. */
  after: Record<string, string>;
}

/**
 * Migrates `schema` to `before`, up to `after` and down to `before` again, reading the indexes of
 * `tasks` at each; down must give back exactly what `before` had. `whileUp` runs at `after`, for
 * what the migration made besides indexes.
 */
export async function pgTaskIndexesAcross(db: Kysely<unknown>, schema: string, migrator: Migrator, migrations: { before: string; after: string }, whileUp?: () => Promise<void>): Promise<TaskIndexesAcross> {
  expect((await migrateTo(migrator, migrations.before, schema)).error).toBeUndefined();
  const before = await pgTaskIndexes(db, schema);
  expect((await migrateTo(migrator, migrations.after, schema)).error).toBeUndefined();
  const after = await pgTaskIndexes(db, schema);
  await whileUp?.();
  expect((await migrateTo(migrator, migrations.before, schema)).error).toBeUndefined();
  expect(await pgTaskIndexes(db, schema)).toEqual(before);
  return { before, after };
}

/** Every index of `tasks` but the `changed` ones (added, removed or rebuilt) is the same before and after. */
export function expectOtherTaskIndexesUnchanged(across: TaskIndexesAcross, changed: readonly string[]): void {
  const others = (indexes: Record<string, string>) => Object.fromEntries(Object.entries(indexes).filter(([name]) => !changed.includes(name)));
  expect(others(across.after)).toEqual(others(across.before));
}

/** The plan PostgreSQL keeps for `text` with these literal parameters (a generic plan: what a named statement settles on), as one string. */
export async function genericPlanOf(db: Kysely<unknown>, text: string, params: string[]): Promise<string> {
  const name = `p_${randomBytes(4).toString('hex')}`;
  await sql.raw(`prepare ${name} as ${text}`).execute(db);
  await sql`set plan_cache_mode = force_generic_plan`.execute(db);
  const { rows } = await sql.raw<{ 'QUERY PLAN': string }>(`explain execute ${name}(${params.join(', ')})`).execute(db);
  await sql.raw(`deallocate ${name}`).execute(db);
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

const insertTask = (id: string, agent: string, owner: string, messageId: string) =>
  sql`insert into tasks (id, agent_id, owner, context_id, state, status_time, created_at, seq, version, task, origin_message_id)
      values (${id}, ${agent}, ${owner}, ${`c-${id}`}, 'TASK_STATE_COMPLETED', 1, 1, 1, 1, '{}', ${messageId})`;

/**
 * The message-id index keeps a message id unique per agent and owner, and only there: the same id
 * again is refused by that index; from another owner, or to another agent (case apart), it is
 * another message.
 */
export async function expectMessageIdUniquePerAgentAndOwner(db: Kysely<unknown>): Promise<void> {
  await insertTask('t-1', 'a', 'o', 'm-1').execute(db);
  await expect(insertTask('t-2', 'a', 'o', 'm-1').execute(db)).rejects.toMatchObject({ code: '23505', constraint: 'tasks_origin_message_idx' });
  await insertTask('t-3', 'a', 'p', 'm-1').execute(db);
  await insertTask('t-4', 'b', 'o', 'm-1').execute(db);
  await insertTask('t-5', 'A', 'o', 'm-1').execute(db);
  const { rows } = await sql<{ n: string }>`select count(*) as n from tasks where origin_message_id = 'm-1'`.execute(db);
  expect(Number(rows[0]!.n)).toBe(4);
}
