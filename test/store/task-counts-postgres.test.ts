/**
 * task_counts (migration 0014) against a real PostgreSQL (AGENTPORT_TEST_PG, default the local
 * server): the per-owner task counts that ListTasks answers `totalSize` from stay equal to a real
 * count of the tasks, with two stores (replicas) committing at once and several batches of each in
 * flight, through lost commits, and after the migration counts a store filled before it.
 */
import { randomBytes } from 'node:crypto';
import { Kysely, Migrator, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { InCodeMigrationProvider } from '../../src/store/migrations/index.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { ConcurrentUpdateError, type TaskCommit } from '../../src/store/store.js';
import { newTask, T0, update } from './fixtures.js';
import { migrateTo } from '../support/migrate-to.js';

const url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const run = `t_${randomBytes(5).toString('hex')}_tc`;
const schemas: string[] = [];
const opened: PostgresStore[] = [];

function freshSchema(): string {
  const schema = `${run}_${schemas.length}`;
  schemas.push(schema);
  return schema;
}

async function open(schema: string): Promise<PostgresStore> {
  const store = await openPostgresStore({ connectionString: url, schema, maxConnections: 6, connectionTimeoutMs: 5000 });
  opened.push(store);
  return store;
}

async function query<R extends pg.QueryResultRow>(schema: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  for (const s of opened) await s.close().catch(() => {});
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const s of schemas) await client.query(`drop schema if exists "${s}" cascade`);
  } finally {
    await client.end();
  }
});

type Counts = { agent_id: string; owner: string; n: number }[];

/** count(*) of the tasks per agent + owner: the truth. */
const realCounts = (schema: string) => query<Counts[number]>(schema, 'select agent_id, owner, count(*)::int as n from tasks group by agent_id, owner order by agent_id, owner');
/** the sum of the count rows per agent + owner: what ListTasks answers. */
const keptCounts = (schema: string) => query<Counts[number]>(schema, 'select agent_id, owner, sum(n)::int as n from task_counts group by agent_id, owner order by agent_id, owner');

const AGENTS = ['agent-a', 'agent-b'];
const OWNERS = ['alice', 'bob', 'carol'];

/**
 * A batch of new tasks spread over agents and owners; every third batch also holds a second
 * commit of one of its tasks, so it is cut into runs (the transaction path of the committer).
 */
function batch(i: number): TaskCommit[] {
  const commits: TaskCommit[] = [];
  for (let k = 0; k < 5; k++) commits.push(newTask({ agentId: AGENTS[(i + k) % 2], owner: OWNERS[(i * 5 + k) % 3], time: T0 + i * 10 + k }));
  if (i % 3 === 0) commits.push(update(commits[0]!, { state: 'TASK_STATE_COMPLETED' }));
  return commits;
}

/** The store's commit, counting how many of its calls were under way at once. */
function commitWatched(store: PostgresStore, inFlight: { now: number; most: number }) {
  return async (commits: TaskCommit[]): Promise<void> => {
    inFlight.now++;
    inFlight.most = Math.max(inFlight.most, inFlight.now);
    try {
      await store.commit(commits);
    } finally {
      inFlight.now--;
    }
  };
}

describe('task_counts on PostgreSQL', () => {
  it('stays equal to a real count with two stores committing at once, several batches of each in flight', async () => {
    const schema = freshSchema();
    const a = await open(schema);
    await a.migrate();
    const b = await open(schema);
    const seenA = { now: 0, most: 0 };
    const seenB = { now: 0, most: 0 };
    const commitA = commitWatched(a, seenA);
    const commitB = commitWatched(b, seenB);
    const batches = Array.from({ length: 120 }, (_, i) => batch(i));
    await Promise.all(batches.map((commits, i) => (i % 2 === 0 ? commitA(commits) : commitB(commits))));

    expect(seenA.most).toBeGreaterThan(1);
    expect(seenB.most).toBeGreaterThan(1);
    const real = await realCounts(schema);
    expect(real.reduce((sum, r) => sum + r.n, 0)).toBe(600);
    expect(await keptCounts(schema)).toEqual(real);
    // The batches spread over shard rows rather than queueing on one per owner.
    const shards = await query<{ shard: number }>(schema, "select shard from task_counts where agent_id = 'agent-a' and owner = 'alice'");
    expect(shards.length).toBeGreaterThan(1);
    for (const r of real) {
      expect((await a.listTasks({ agentId: r.agent_id, owner: r.owner, pageSize: 1 })).totalSize).toBe(r.n);
      expect((await b.listTasks({ agentId: r.agent_id, owner: r.owner, pageSize: 1 })).totalSize).toBe(r.n);
    }
  }, 60_000);

  it('adds nothing for a batch that lost a commit, in one statement or cut into runs', async () => {
    const schema = freshSchema();
    const store = await open(schema);
    await store.migrate();
    const first = newTask({ id: 'tc-taken' });
    await store.commit([first, newTask({ owner: 'bob' })]);
    const before = await keptCounts(schema);

    const fresh = newTask();
    await expect(store.commit([newTask(), newTask({ id: 'tc-taken' })])).rejects.toBeInstanceOf(ConcurrentUpdateError);
    await expect(store.commit([fresh, update(fresh), newTask({ id: 'tc-taken', owner: 'bob' })])).rejects.toBeInstanceOf(ConcurrentUpdateError);
    expect(await keptCounts(schema)).toEqual(before);
    expect(await keptCounts(schema)).toEqual(await realCounts(schema));
  });

  it('answers totalSize of an unfiltered list from the count rows; filtered lists still count', async () => {
    const schema = freshSchema();
    const store = await open(schema);
    await store.migrate();
    await store.commit([newTask({ state: 'TASK_STATE_COMPLETED', time: T0 }), newTask({ state: 'TASK_STATE_WORKING', time: T0 + 1 }), newTask({ state: 'TASK_STATE_COMPLETED', time: T0 + 2 })]);
    expect((await store.listTasks({ agentId: 'agent-a', owner: 'alice', pageSize: 1 })).totalSize).toBe(3);

    // Moved by hand: an unfiltered list reports the rows as they are, a filtered one counts tasks.
    await query(schema, "update task_counts set n = n + 1000 where agent_id = 'agent-a' and owner = 'alice'");
    expect((await store.listTasks({ agentId: 'agent-a', owner: 'alice', pageSize: 1 })).totalSize).toBe(1003);
    expect((await store.listTasks({ agentId: 'agent-a', owner: 'alice', status: 'TASK_STATE_COMPLETED', pageSize: 1 })).totalSize).toBe(2);
    expect((await store.listTasks({ agentId: 'agent-a', owner: 'alice', statusTimeAfter: T0 + 1, pageSize: 1 })).totalSize).toBe(2);
    // A later page answers the total its first page reported (page-token.ts), whatever the rows say.
    expect((await store.listTasks({ agentId: 'agent-a', owner: 'alice', pageSize: 1, knownTotal: 3 })).totalSize).toBe(3);
  });

  it('counts the tasks of a store filled before migration 0014 when it is applied', async () => {
    const schema = freshSchema();
    const old = new Kysely<unknown>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1, options: `-c search_path=${schema}` }) }),
    });
    await fillBefore0014(old, schema);
    await old.destroy();

    const store = await open(schema);
    expect((await store.migrationStatus()).pending).toEqual([
      '0014_task_counts',
      '0015_session_grants',
      '0016_api_key_owners',
      '0017_task_caller',
      '0018_remote_tokens',
      '0020_usage_cached_tokens',
      '0021_push_outbox_config_head',
      '0022_usage_remote_identity',
      '0023_task_usage_in_task_row',
      '0024_task_running_index',
      '0025_events_row_task_refs',
      '0026_credentials_generation',
      '0027_task_final_events',
      '0028_postgres_task_inserts',
      '0029_postgres_list_index_ascending',
      '0030_postgres_usage_time_brin',
    ]);
    await store.migrate();
    const real = await realCounts(schema);
    expect(real).toEqual([
      { agent_id: 'agent-a', owner: 'alice', n: 70 },
      { agent_id: 'agent-a', owner: 'bob', n: 30 },
      { agent_id: 'agent-b', owner: 'alice', n: 5 },
    ]);
    expect(await keptCounts(schema)).toEqual(real);
    expect((await store.listTasks({ agentId: 'agent-a', owner: 'alice', pageSize: 10 })).totalSize).toBe(70);

    // And goes on from there with the commit path.
    await store.commit([newTask(), newTask({ owner: 'bob' })]);
    expect((await store.listTasks({ agentId: 'agent-a', owner: 'alice', pageSize: 10 })).totalSize).toBe(71);
    expect(await keptCounts(schema)).toEqual(await realCounts(schema));
  });
});

/** Migrates a fresh schema to 0013 and writes 105 tasks straight into it, as an older build would have. */
async function fillBefore0014(db: Kysely<unknown>, schema: string): Promise<void> {
  const { error } = await migrateTo(new Migrator({ db, provider: new InCodeMigrationProvider('postgres'), migrationTableSchema: schema }), '0013_task_live_index', schema);
  expect(error).toBeUndefined();
  const owners: [agent: string, owner: string, tasks: number][] = [
    ['agent-a', 'alice', 70],
    ['agent-a', 'bob', 30],
    ['agent-b', 'alice', 5],
  ];
  for (const [agent, owner, tasks] of owners) {
    for (let i = 0; i < tasks; i++) {
      const id = `old-${agent}-${owner}-${i}`;
      const task = { id, contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } };
      await db
        .insertInto('tasks' as never)
        .values({ id, agent_id: agent, owner, context_id: 'c', state: 'TASK_STATE_COMPLETED', status_time: T0 + i, created_at: T0 + i, seq: 1, version: 1, task: JSON.stringify(task) } as never)
        .execute();
    }
  }
}
