/**
 * The events row of a terminal commit refers to its task row instead of repeating it (ADR 0050,
 * issue 26): `{"t": seq, "e": [...]}`, where a message, status or artifact the task row holds is a
 * number. No table changes, and rows written before read as they did; the migration is what stops
 * a build from before it opening a database that holds such rows (it refuses a database with a
 * migration it does not know), since that build would read the numbers as events.
 *
 * Down writes every such row back in the compact form (`{"c": contextId, "e": [...]}`), each event
 * whole again, so the build before can read it.
 */
import { sql, type Kysely } from 'kysely';
import { compactEvent } from '../events-row-format.js';
import { refersToTaskRow, toEventRecords } from '../rows.js';

export async function up(): Promise<void> {}

interface ReferringRow {
  task_id: string;
  seq: number | string;
  first_seq: number | string;
  events: string;
  created_at: number | string;
  task_seq: number | string;
  task: string;
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<ReferringRow>`
    select e.task_id, e.seq, e.first_seq, e.events, e.created_at, t.seq as task_seq, t.task
    from task_events e join tasks t on t.id = e.task_id
    where e.events like ${'{"t":%'}`.execute(db);
  for (const r of rows) {
    if (!refersToTaskRow(r.events)) continue;
    const records = toEventRecords({ task_id: r.task_id, seq: Number(r.seq), first_seq: Number(r.first_seq), events: r.events, created_at: Number(r.created_at) }, { seq: r.task_seq, task: r.task });
    const contextId = (JSON.parse(r.task) as { contextId: string }).contextId;
    const json = JSON.stringify({ c: contextId, e: records.map((e) => [e.createdAt, compactEvent(e.event, r.task_id, contextId)]) });
    await sql`update task_events set events = ${json} where task_id = ${r.task_id} and seq = ${r.seq}`.execute(db);
  }
}
