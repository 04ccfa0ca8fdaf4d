/**
 * A PostgreSQL store's message-id filter (src/store/postgres/sole-writer-message-ids.ts, ADR 0095)
 * on a real PostgreSQL, with a second store on the same schema as the other replica: a retried
 * message finds its task whether or not this replica is alone, before the filter is read, in the
 * spell it was read in and after another replica wrote between two spells; the filter is consulted
 * only during the spell it was read in, and then answers a fresh key without a statement.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskCommit } from '../../../src/store/index.js';
import { openPostgresStore } from '../../../src/store/postgres/open-on-demand.js';
import type { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { SOLE_WRITER_BUILD_CHUNK, SoleWriterMessageIds } from '../../../src/store/postgres/sole-writer-message-ids.js';
import { newTask } from '../fixtures.js';

const url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `t_solewriter_${randomBytes(4).toString('hex')}`;
/** this replica's store, which trusts its keys while `spell` names a spell */
let here: PostgresStore;
/** another replica's store on the same schema */
let other: PostgresStore;
let spell: number | undefined;

function withKey(messageId: string, owner = 'alice'): TaskCommit {
  return { ...newTask({ agentId: 'agent-a', owner }), originMessageId: messageId };
}

async function found(messageId: string, owner = 'alice'): Promise<string | undefined> {
  return (await here.findTaskByMessageId('agent-a', owner, messageId))?.task.id;
}

/** Starts the read for the present spell (the first lookup in it does) and waits for its end. */
async function readForSpell(): Promise<void> {
  await found('starts-the-read');
  await expect.poll(() => here.messageIdFilterStatus().build).toBe('complete');
  expect(here.messageIdFilterStatus().spell).toBe(spell);
}

beforeAll(async () => {
  here = (await openPostgresStore({ connectionString: url, schema, connectionTimeoutMs: 5000 })) as PostgresStore;
  await here.migrate();
  other = (await openPostgresStore({ connectionString: url, schema, connectionTimeoutMs: 5000 })) as PostgresStore;
  here.trustMessageIdsWhileAlone(() => spell);
});

afterAll(async () => {
  await here?.close();
  await other?.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
});

describe('the PostgreSQL store’s message ids while this replica writes alone', () => {
  it('finds every stored key and only those, alone or not, before and after its read', async () => {
    const stored: Record<string, string> = {};
    for (const [store, key] of [
      [here, 'before-1'],
      [other, 'before-2'],
    ] as const) {
      const t = withKey(key);
      await store.commit([t]);
      stored[key] = t.task.id;
    }
    // not alone: the database is asked, nothing is read
    expect(await found('before-1')).toBe(stored['before-1']);
    expect(await found('before-2')).toBe(stored['before-2']);
    expect(await found('never')).toBeUndefined();
    expect(here.messageIdFilterStatus().build).toBe('off');

    spell = 1;
    // the spell's first lookup starts the read and is answered by the database meanwhile
    expect(await found('before-2')).toBe(stored['before-2']);
    await readForSpell();
    expect(await found('before-1')).toBe(stored['before-1']);
    expect(await found('before-2')).toBe(stored['before-2']);
    expect(await found('before-1', 'bob')).toBeUndefined();

    // a key committed here during the spell
    const t = withKey('during-1');
    await here.commit([t]);
    expect(await found('during-1')).toBe(t.task.id);
  });

  it('answers a key it never saw without the database during its spell: what another replica wrote then is not seen', async () => {
    spell = 1;
    await readForSpell();
    // Another replica writing while this one is told it is alone breaks the premise (the bus says
    // otherwise first): the key is answered from the filter, which never saw it. This is what
    // makes the filter worth having (no statement for a fresh key), and why a spell ends.
    const t = withKey('unseen-in-spell');
    await other.commit([t]);
    expect(await found('unseen-in-spell')).toBeUndefined();

    // the spell ends: the database is asked again
    spell = undefined;
    expect(await found('unseen-in-spell')).toBe(t.task.id);
  });

  it('reads again in a new spell what another replica wrote between two spells', async () => {
    spell = 1;
    await readForSpell();
    spell = undefined;
    const between = withKey('between-spells');
    await other.commit([between]);
    // a later spell: the key must be found at once (while the read runs) and after it
    spell = 2;
    expect(await found('between-spells')).toBe(between.task.id);
    await readForSpell();
    expect(await found('between-spells')).toBe(between.task.id);
    expect(await found('between-spells', 'carol')).toBeUndefined();
  });
});

describe('SoleWriterMessageIds', () => {
  let pool: pg.Pool;
  let statements = 0;

  beforeAll(() => {
    pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 2 });
    const query = pool.query.bind(pool) as (...a: unknown[]) => unknown;
    (pool as unknown as { query: (...a: unknown[]) => unknown }).query = (...a: unknown[]) => {
      statements++;
      return query(...a);
    };
  });

  afterAll(async () => {
    await pool?.end();
  });

  it('reads the table in chunks by task id, every key once a chunk, and then asks nothing', async () => {
    // more keys than a chunk, written by "another replica", so the read takes two chunks at least
    const n = SOLE_WRITER_BUILD_CHUNK + 7;
    const client = await pool.connect();
    try {
      await client.query(
        `insert into tasks (id, agent_id, owner, context_id, state, status_time, created_at, seq, version, task, origin_message_id)
         select 'zz-' || lpad(i::text, 6, '0'), 'agent-c', 'dave', 'ctx', 'TASK_STATE_SUBMITTED', 0, 0, 1, 1, '{}', 'bulk-' || i
         from generate_series(1, $1) as i`,
        [n],
      );
    } finally {
      client.release();
    }
    const ids = new SoleWriterMessageIds(pool);
    let s: number | undefined;
    ids.trustWhile(() => s);
    expect(ids.mayHold('agent-c', 'dave', 'bulk-1')).toBe(true);
    expect(ids.status().build).toBe('off');
    s = 7;
    const before = statements;
    expect(ids.mayHold('agent-c', 'dave', 'bulk-1')).toBe(true);
    await expect.poll(() => ids.status().build).toBe('complete');
    const reads = statements - before;
    // every stored key and the first and last of the bulk: none called absent
    for (const i of [1, 2, SOLE_WRITER_BUILD_CHUNK - 1, SOLE_WRITER_BUILD_CHUNK, SOLE_WRITER_BUILD_CHUNK + 1, n]) {
      expect(ids.mayHold('agent-c', 'dave', `bulk-${i}`)).toBe(true);
    }
    // keys never stored: with a Bloom filter a few may read "maybe", most are proven absent
    let absent = 0;
    for (let i = 0; i < 1000; i++) if (!ids.mayHold('agent-c', 'dave', `nope-${i}`)) absent++;
    expect(absent).toBeGreaterThan(950);
    expect(statements - before).toBe(reads);
    const stored = (await pool.query<{ n: string }>('select count(*) as n from tasks where origin_message_id is not null')).rows[0]!.n;
    expect(reads).toBe(Math.floor(Number(stored) / SOLE_WRITER_BUILD_CHUNK) + 1);
    // out of the spell: never absent
    s = undefined;
    expect(ids.mayHold('agent-c', 'dave', 'nope-1')).toBe(true);
  });

  it('a read that fails leaves its spell unproven: every lookup queries', async () => {
    const failing = { query: async () => Promise.reject(new Error('connection lost')) } as unknown as pg.Pool;
    const ids = new SoleWriterMessageIds(failing);
    ids.trustWhile(() => 9);
    expect(ids.mayHold('agent-c', 'dave', 'never-stored')).toBe(true);
    await expect.poll(() => ids.status().build).toBe('failed');
    expect(ids.mayHold('agent-c', 'dave', 'never-stored')).toBe(true);
  });

  it('does not complete a spell with a read begun in an earlier one', async () => {
    // each read's statement held until the test lets it go, in the order asked
    const held: Array<() => void> = [];
    const gated = {
      query: async (...a: unknown[]) => {
        await new Promise<void>((go) => held.push(go));
        return (pool.query as (...x: unknown[]) => unknown)(...a);
      },
    } as unknown as pg.Pool;
    const ids = new SoleWriterMessageIds(gated);
    let s: number | undefined = 3;
    ids.trustWhile(() => s);
    ids.mayHold('agent-c', 'dave', 'x');
    s = 4;
    ids.mayHold('agent-c', 'dave', 'x');
    await expect.poll(() => held.length).toBe(2);
    held.shift()!();
    // spell 3's read has ended (one chunk would have done for a small table, more here: let it run)
    for (let i = 0; i < 20 && ids.status().build === 'running'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      while (held.length > 1) held.splice(1, 1)[0]!();
    }
    expect(ids.status()).toMatchObject({ build: 'running', spell: 4 });
    expect(ids.mayHold('agent-c', 'dave', 'never-stored')).toBe(true);
    for (const go of held.splice(0)) go();
    await expect
      .poll(() => {
        for (const go of held.splice(0)) go();
        return ids.status().build;
      })
      .toBe('complete');
    expect(ids.mayHold('agent-c', 'dave', 'never-stored')).toBe(false);
  });
});
