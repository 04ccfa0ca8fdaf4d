import Sqlite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { SqlQuotaStore } from '../../../src/store/quota-store.js';
import { StatementCache } from '../../../src/store/sqlite/statement-cache.js';

/** An in-memory database whose `prepare` calls are counted by SQL text. */
function countingDatabase(): { raw: Sqlite.Database; prepared: string[] } {
  const raw = new Sqlite(':memory:');
  const prepared: string[] = [];
  const prepare = raw.prepare.bind(raw);
  raw.prepare = ((text: string) => {
    prepared.push(text);
    return prepare(text);
  }) as typeof raw.prepare;
  return { raw, prepared };
}

let open: Sqlite.Database[] = [];
afterEach(() => {
  for (const raw of open) if (raw.open) raw.close();
  open = [];
});

describe('the SQLite statement cache', () => {
  it('prepares a statement text once and hands the same statement back', () => {
    const { raw, prepared } = countingDatabase();
    open.push(raw);
    const cache = new StatementCache(raw);
    const a = cache.prepare('select 1 as one');
    expect(cache.prepare('select 1 as one')).toBe(a);
    expect(prepared).toEqual(['select 1 as one']);
  });

  it('keeps only the most recently used statements, so texts that vary do not pile up', () => {
    const { raw, prepared } = countingDatabase();
    open.push(raw);
    const cache = new StatementCache(raw, 2);
    cache.prepare('select 1');
    cache.prepare('select 2');
    cache.prepare('select 1'); // now the most recent: 'select 2' goes first
    cache.prepare('select 3');
    expect(cache.size).toBe(2);
    cache.prepare('select 1');
    expect(prepared).toEqual(['select 1', 'select 2', 'select 3']);
    cache.prepare('select 2');
    expect(prepared).toEqual(['select 1', 'select 2', 'select 3', 'select 2']);
  });

  it("serves Kysely's queries with one preparation per text, their results unchanged, and a stream on a statement of its own", async () => {
    const { raw, prepared } = countingDatabase();
    open.push(raw);
    const db = new Kysely<{ t: { id: number; v: string } }>({ dialect: new SqliteDialect({ database: new StatementCache(raw).forKysely() }) });
    await sql`create table t (id integer primary key, v text)`.execute(db);
    for (let i = 1; i <= 3; i++)
      await db
        .insertInto('t')
        .values({ id: i, v: `v${i}` })
        .execute();
    for (let i = 0; i < 3; i++)
      expect(await db.selectFrom('t').selectAll().where('id', '>', 1).orderBy('id').execute()).toEqual([
        { id: 2, v: 'v2' },
        { id: 3, v: 'v3' },
      ]);
    const streamed: unknown[] = [];
    for (let i = 0; i < 2; i++) for await (const row of db.selectFrom('t').select('id').orderBy('id').stream()) streamed.push(row);
    expect(streamed).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }, { id: 1 }, { id: 2 }, { id: 3 }]);
    expect(await db.selectFrom('t').select('id').orderBy('id').execute()).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect(prepared.filter((p) => p.startsWith('insert'))).toHaveLength(1);
    expect(prepared.filter((p) => p.startsWith('select "id", "v"') || p.startsWith('select *'))).toHaveLength(1);
    await db.destroy();
  });
});

describe('the quota re-read on SQLite', () => {
  it('builds and prepares its statement once, however often the quotas are read', async () => {
    const { raw, prepared } = countingDatabase();
    open.push(raw);
    raw.exec('create table quotas (id text primary key, definition text not null, updated_at bigint not null)');
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new StatementCache(raw).forKysely() }) });
    const quotas = new SqlQuotaStore(db);
    await quotas.putQuota({ id: 'q-1', requests: { limit: 10, window: 60_000 } } as never, 5);
    const before = prepared.length;
    for (let i = 0; i < 5; i++) expect(await quotas.listQuotas()).toEqual([{ quota: { id: 'q-1', requests: { limit: 10, window: 60_000 } }, updatedAt: 5 }]);
    expect(prepared.length - before).toBe(1);
    await db.destroy();
  });
});
