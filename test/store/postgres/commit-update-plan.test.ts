/**
 * The commit statement's update of existing tasks (src/store/postgres/postgres-commit.ts) must find
 * them through the primary key, never by reading the whole `tasks` table (issue 26, pg9).
 * PostgreSQL estimates json_to_recordset at 100 rows, so without a condition of its own on
 * `tasks.id` the update was planned as a hash join over a sequential scan of a table of thousands
 * of rows, analyzed or not. The plan checked is the generic one, the plan a named prepared
 * statement keeps on a connection.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore, type Store } from '../../../src/store/index.js';
import { commitStatementText } from '../../../src/store/postgres/postgres-commit.js';
import { dropSchema } from '../../support/cluster.js';
import { newTask } from '../fixtures.js';

const url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `t_updplan_${randomBytes(4).toString('hex')}`;
let store: Store;
let client: pg.Client;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Subplan Name'?: string;
  Plans?: PlanNode[];
}

beforeAll(async () => {
  store = await openPostgresStore({ connectionString: url, schema, connectionTimeoutMs: 5000 });
  await store.migrate();
  client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await client.connect();
  await client.query('set plan_cache_mode = force_generic_plan');
  await client.query(`prepare commit_tasks (task_commit_new_row[], json, json, json, json, integer, integer, bytea, text[]) as ${commitStatementText()}`);
});

afterAll(async () => {
  await client?.end();
  await store?.close();
  await dropSchema(url, schema);
});

/** The nodes of the generic plan's `updated` CTE, flattened. */
async function updatePlanNodes(): Promise<PlanNode[]> {
  const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`explain (format json) execute commit_tasks('{}', '[]', '[]', '[]', '[]', 0, null, ''::bytea, '{}')`);
  const find = (n: PlanNode): PlanNode | undefined => (n['Subplan Name'] === 'CTE updated' ? n : n.Plans?.map(find).find((x) => x !== undefined));
  const cte = find(rows[0]!['QUERY PLAN'][0].Plan);
  expect(cte, 'the plan has an "updated" CTE').toBeDefined();
  const all: PlanNode[] = [];
  const walk = (n: PlanNode): void => {
    all.push(n);
    n.Plans?.forEach(walk);
  };
  walk(cte!);
  return all;
}

/** How the plan reads `tasks` apart from the update itself, and the indexes it probes. */
function readsOfTasks(nodes: PlanNode[]): { scans: string[]; indexes: string[] } {
  return {
    scans: nodes.filter((n) => n['Relation Name'] === 'tasks' && n['Node Type'] !== 'ModifyTable').map((n) => n['Node Type']),
    indexes: nodes.flatMap((n) => (n['Index Name'] ? [n['Index Name']] : [])),
  };
}

describe('PostgreSQL commit: the update of existing tasks probes the primary key', () => {
  it('on a table of 3,000 tasks not analyzed yet', async () => {
    for (let i = 0; i < 30; i++) await store.commit(Array.from({ length: 100 }, () => newTask()));
    const { scans, indexes } = readsOfTasks(await updatePlanNodes());
    expect(scans).not.toContain('Seq Scan');
    expect(indexes).toEqual(['tasks_pkey']);
  });

  it('on the same table analyzed', async () => {
    await client.query('analyze tasks');
    // The statistics changed, so the next EXECUTE plans the statement again.
    const { scans, indexes } = readsOfTasks(await updatePlanNodes());
    expect(scans).not.toContain('Seq Scan');
    expect(indexes).toEqual(['tasks_pkey']);
  });
});
