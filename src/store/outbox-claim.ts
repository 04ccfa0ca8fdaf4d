/**
 * The push outbox claim as one query, shared by both dialects: built per call with numbers by the
 * SQL store, and compiled once with slots by the SQLite store, which polls it every second (a
 * query built and prepared per poll was most of the statement preparation a server does at rest).
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from './schema.js';
import type { SqlDialectName } from './migrations/index.js';

type Value = number | RawBuilder<number>;

/**
 * Leases the oldest due rows (`now`), at most `limit`, until `leaseUntil`; returns them. Its
 * parameters bind in the order leaseUntil, now, now, limit.
 */
export function outboxClaimQuery(db: Kysely<Database>, dialect: SqlDialectName, v: { leaseUntil: Value; now: Value; limit: Value }) {
  const due = db
    .selectFrom('push_outbox as o')
    .select('o.id')
    .where('o.next_attempt_at', '<=', v.now)
    .where((eb) => eb.or([eb('o.lease_until', 'is', null), eb('o.lease_until', '<', v.now)]))
    // Only the head entry of each of a task's push configs may go out: a later event never
    // overtakes an earlier one to the same webhook, even while the earlier one is leased or
    // waiting for its retry, and one webhook that is down never holds back another (issue 25 P1).
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('push_outbox as h').select(sql.lit(1).as('one')).whereRef('h.task_id', '=', 'o.task_id').whereRef('h.config_id', '=', 'o.config_id').whereRef('h.id', '<', 'o.id'))),
    )
    .orderBy('o.id')
    .limit(v.limit)
    // PG: concurrent claimers skip each other's rows instead of waiting on them.
    .$if(dialect === 'postgres', (qb) => qb.forUpdate().skipLocked());
  // One UPDATE … RETURNING: selecting and leasing cannot be separated by another claimer.
  return db.updateTable('push_outbox').set({ lease_until: v.leaseUntil }).where('id', 'in', due).returning(['id', 'task_id', 'config_id', 'seq', 'payload', 'attempts', 'next_attempt_at']);
}
