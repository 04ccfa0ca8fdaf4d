/**
 * findTaskByMessageId on PostgreSQL, coalesced. Every SendMessage that creates a task asks it
 * first (a retried message finds its task instead of running the agent again), so on PostgreSQL
 * it was one round trip per request: the most frequent statement by far, and each round trip costs
 * this process a socket write and PostgreSQL a wake-up (issue 18). The lookups asked in the same
 * tick go out as one statement over arrays, a named prepared statement whatever their number.
 *
 * Reading a little later changes nothing: the lookup only spares the agent a duplicate run, and a
 * duplicate that slips between the read and the commit is refused by the unique index
 * (agent_id, owner, origin_message_id) at commit.
 */
import type pg from 'pg';
import type { TasksTable } from '../schema.js';
import { arrayLiteral } from './array-literal.js';
import { queryNamed, type NamedStatement } from './named-query.js';

/** Keys per statement: three text arrays, so far from any parameter or size limit. */
const MAX_KEYS = 500;

/** The tasks columns by name, never `*`: a prepared statement's result shape is fixed when prepared. */
export const TASK_COLUMNS = 'id, agent_id, owner, context_id, state, status_time, created_at, seq, version, task, lease_owner, lease_expires_at, origin_message_id, trace_parent, caller';

/**
 * One probe of the unique index (origin_message_id, agent_id, owner) per key, whatever the table's
 * statistics say: a LATERAL subquery with a LIMIT is never flattened into a join, so the plan is a
 * nested loop over the keys. Agent and owner are compared under "C", the collation that index keys
 * them with (migration 0029; equality is the same under any deterministic collation): the list
 * index (agent_id, owner, …) keys them under the column's, so it has no condition of this lookup's
 * to use, and a table never analyzed cannot have the lookup read every task of the owner through
 * it (the two indexes cost the planner the same there). The plain join it replaces was planned
 * once per connection as a named statement, and on a fresh schema (no statistics yet) that generic
 * plan was a hash join over a sequential scan of every task, kept until the first ANALYZE (issue
 * 26: on a new store each lookup read the whole table for the first seconds under load).
 *
 * The arrays are read through scalar subqueries, `unnest((select $1::text[]), …)`, so that the
 * statement is planned once a connection whatever the batch's size (issue 26, ADR 0090). Over a
 * bare parameter, a plan made for the bound values counts the array's elements, while the plan
 * kept for any values counts 10: a batch of fewer keys looked cheaper planned afresh, so the plan
 * cache planned it again at each execution (~320–390 k more backend instructions a statement at
 * 1–8 keys; 13–35 % of the lookups under load). A subquery's value is unknown to either plan, so both
 * count 10 and the kept plan wins after the cache's first five.
 *
 * A found task comes back as one json column, not as its 15 columns: with pg's own query the
 * columns' descriptions were rebuilt at every execution, the largest single cost the driver put on
 * the event loop (ADR 0077), paid by every lookup for the rare hit (a retried message). Executed
 * without Describe now (named-query.ts, ADR 0079), the json column still lets `readRow` take the
 * row as it is: the columns are text and integers, so the json object has the same keys and
 * values, typed, with no per-column parsing here.
 */
export const FIND_BY_MESSAGE_IDS: NamedStatement<FoundRow> = {
  name: 'agentport_find_task_rows_by_message_ids',
  text: `select k.i, row_to_json(t) as row
           from unnest((select $1::text[]), (select $2::text[]), (select $3::text[])) with ordinality as k(agent_id, owner, message_id, i)
           cross join lateral (select ${TASK_COLUMNS} from tasks
                                where origin_message_id = k.message_id and agent_id = k.agent_id collate "C" and owner = k.owner collate "C" limit 1) as t`,
  // i is the key's ordinality (bigint), row the task as json (never null: the join is inner).
  readRow: (fields) => ({ i: Number(fields[0]), row: JSON.parse(fields[1]!) as TasksTable }),
};

/** A key that found its task: the key's position in the statement's arrays (from 1), the task's row. */
interface FoundRow {
  i: number;
  row: TasksTable;
}

interface Lookup {
  agentId: string;
  owner: string;
  messageId: string;
  resolve: (row: TasksTable | undefined) => void;
  reject: (err: unknown) => void;
}

export class MessageIdLookups {
  private pending: Lookup[] = [];
  private scheduled = false;

  constructor(private readonly pool: pg.Pool) {}

  find(agentId: string, owner: string, messageId: string): Promise<TasksTable | undefined> {
    return new Promise((resolve, reject) => {
      this.pending.push({ agentId, owner, messageId, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      // After the I/O callbacks of this turn: the requests parsed together are looked up together.
      setImmediate(this.send);
    });
  }

  private readonly send = (): void => {
    this.scheduled = false;
    const all = this.pending;
    this.pending = [];
    for (let i = 0; i < all.length; i += MAX_KEYS) void this.lookUp(all.slice(i, i + MAX_KEYS));
  };

  private async lookUp(batch: Lookup[]): Promise<void> {
    try {
      // The arrays as array input text and the statement executed without Describe: pg's own
      // conversion of the arrays and its per-execution result building cost more of the event loop
      // than the rest of the lookup (array-literal.ts, named-query.ts).
      const { rows } = await queryNamed(this.pool, FIND_BY_MESSAGE_IDS, [arrayLiteral(batch.map((l) => l.agentId)), arrayLiteral(batch.map((l) => l.owner)), arrayLiteral(batch.map((l) => l.messageId))]);
      const found = new Map<number, TasksTable>();
      for (const { i, row } of rows) found.set(i, row);
      batch.forEach((l, i) => l.resolve(found.get(i + 1)));
    } catch (err) {
      for (const l of batch) l.reject(err);
    }
  }
}
