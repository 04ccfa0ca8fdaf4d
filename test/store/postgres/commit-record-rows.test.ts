/**
 * The PostgreSQL commit sends its new tasks as one array of composite values
 * (src/store/postgres/record-rows.ts, migration 0028). Ids, owners, context ids and message ids
 * come from clients and identity providers, so whatever characters they hold (the array's and the
 * composite's own delimiters, quotes, backslashes, spaces, the word NULL, an empty string), each
 * must land in its own column exactly: a value that spilled into the next field would store a task
 * under another owner.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { NEW_TASK_FIELDS } from '../../../src/store/postgres/postgres-commit.js';
import type { TaskCommit } from '../../../src/store/store.js';
import { postgresStoreWithPool } from '../../support/postgres-store-with-pool.js';
import { newTask } from '../fixtures.js';

const db = postgresStoreWithPool('t_recrows');

/** Each a different case for the two levels of quoting. */
const VALUES: Record<string, string> = {
  'a field break': 'x","owner":"mallory',
  'composite delimiters': 'a,b)(c',
  'array delimiters': '{a,b},"c"',
  'quotes and backslashes': 'say "hi" \\ and \\" and \\\\',
  'a trailing backslash': 'end\\',
  spaces: '  padded  ',
  'the word NULL': 'NULL',
  'an empty string': '',
  'newline, tab, accents': 'line\nnext\tü 😀',
  'only plain characters': 'user@example.com/x:1+2_3.4-5',
};

interface Row {
  id: string;
  agent_id: string;
  owner: string;
  context_id: string;
  origin_message_id: string | null;
  trace_parent: string | null;
  caller: string | null;
  lease_owner: string | null;
}

describe('PostgreSQL commit: new tasks as composite values', () => {
  it("writes the fields in the order of the row type's attributes", async () => {
    const { rows } = await db.pool.query<{ attname: string }>(
      `select a.attname from pg_attribute a join pg_type t on t.typrelid = a.attrelid
        where t.typname = 'task_commit_new_row' and t.typnamespace = $1::regnamespace and a.attnum > 0 and not a.attisdropped order by a.attnum`,
      [db.schema],
    );
    expect(rows.map((r) => r.attname)).toEqual([...NEW_TASK_FIELDS]);
  });

  for (const [name, v] of Object.entries(VALUES)) {
    it(`keeps every text field of a new task holding ${name}`, async () => {
      const tag = randomBytes(3).toString('hex');
      // Ids and message ids must be unique, so they carry a tag; the other fields hold the value alone.
      const c: TaskCommit = newTask({ id: `t-${tag}-${v}`, agentId: `a-${v}`, owner: v, contextId: v });
      c.originMessageId = `m-${tag}-${v}`;
      c.traceParent = v;
      c.caller = v;
      c.lease = { owner: v, expiresAt: 1_800_000_000_000 };
      // Beside a plain task in the same statement, so a row that spilled would show in either.
      const neighbour = newTask();
      neighbour.originMessageId = `m-${tag}-plain`;
      await db.store.commit([c, neighbour]);

      const { rows } = await db.pool.query<Row>('select id, agent_id, owner, context_id, origin_message_id, trace_parent, caller, lease_owner from tasks where id = any($1::text[]) order by id', [
        [c.task.id, neighbour.task.id],
      ]);
      const byId = new Map(rows.map((r) => [r.id, r]));
      expect(byId.get(c.task.id)).toEqual({
        id: c.task.id,
        agent_id: c.agentId,
        owner: c.owner,
        context_id: c.task.contextId,
        origin_message_id: c.originMessageId,
        trace_parent: c.traceParent,
        caller: c.caller,
        lease_owner: c.lease.owner,
      });
      expect(byId.get(neighbour.task.id)).toEqual({
        id: neighbour.task.id,
        agent_id: neighbour.agentId,
        owner: neighbour.owner,
        context_id: neighbour.task.contextId,
        origin_message_id: neighbour.originMessageId,
        trace_parent: null,
        caller: null,
        lease_owner: null,
      });
      expect((await db.store.getTask(c.agentId, c.task.id))?.task).toEqual(c.task);
      expect((await db.store.findTaskByMessageId(c.agentId, c.owner, c.originMessageId))?.task.id).toBe(c.task.id);
    });
  }

  it('keeps each row its own values when rows of one statement repeat some and change others', async () => {
    // RecordRows reuses a column's field text while the next row's value equals the last one
    // (pg33): a quoted value repeated must still make its row escaped, and a value that changes
    // after a run of equal ones must not keep the run's text.
    const tag = randomBytes(3).toString('hex');
    const owners = ['o "q" 1', 'o "q" 1', 'plain-owner', 'plain-owner', 'o\\back'];
    const commits = owners.map((owner, i) => {
      const c = newTask({ id: `t-${tag}-${i}`, owner, agentId: `a-${tag}`, contextId: i < 2 ? 'ctx, shared' : `ctx-${i}`, time: 1_800_000_000_000 + Math.floor(i / 2) });
      c.originMessageId = `m-${tag}-${i}`;
      c.lease = { owner: i === 4 ? 'other' : 'rep "1"', expiresAt: 1_800_000_015_000 };
      return c;
    });
    await db.store.commit(commits);
    const { rows } = await db.pool.query<{ id: string; owner: string; context_id: string; lease_owner: string; status_time: string; created_at: string }>(
      'select id, owner, context_id, lease_owner, status_time, created_at from tasks where id = any($1::text[]) order by id',
      [commits.map((c) => c.task.id)],
    );
    expect(rows).toEqual(
      commits.map((c) => ({
        id: c.task.id,
        owner: c.owner,
        context_id: c.task.contextId,
        lease_owner: c.lease!.owner,
        status_time: String(Date.parse(c.task.status.timestamp!)),
        created_at: String(c.createdAt),
      })),
    );
  });
});
