/**
 * The quotas in force (src/core/quotas/quota-book.ts): configuration quotas, read-only, and API
 * quotas kept in a real database (SQLite; migration 0010_quotas) and re-read by other replicas.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { quotasSchema } from '../../../src/config/usage-schema.js';
import { QuotaBook, QuotaConfigConflict } from '../../../src/core/quotas/quota-book.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/index.js';

let store: SqliteStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

async function openStore(): Promise<SqliteStore> {
  store = await openSqliteStore({ file: ':memory:' });
  await store.migrate();
  return store;
}

const config = quotasSchema.parse([{ id: 'from-file', requests: { limit: 10, window: 60_000 } }]);

describe('quota book', () => {
  it('merges the file’s quotas with the database’s, and marks where each comes from', async () => {
    const s = await openStore();
    const book = new QuotaBook({ config, store: s.quotas });
    await book.put(quotasSchema.parse([{ id: 'from-api', per: ['key'], concurrentTasks: 2 }])[0]!);
    expect((await book.list()).map((q) => [q.id, q.source])).toEqual([
      ['from-file', 'config'],
      ['from-api', 'api'],
    ]);
    const stored = await s.quotas.listQuotas();
    expect(stored.map((r) => r.quota)).toEqual([{ id: 'from-api', per: ['key'], match: {}, concurrentTasks: 2 }]);
  });

  it('refuses to change or delete a quota of the file', async () => {
    const book = new QuotaBook({ config, store: (await openStore()).quotas });
    await expect(book.put({ ...config[0]!, requests: { limit: 1, window: 1000 } })).rejects.toBeInstanceOf(QuotaConfigConflict);
    await expect(book.delete('from-file')).rejects.toBeInstanceOf(QuotaConfigConflict);
    expect(await book.delete('never-was')).toBe(false);
  });

  it('shows another replica’s change once its copy is older than the re-read interval', async () => {
    const s = await openStore();
    let now = 1_000_000;
    const mine = new QuotaBook({ config: [], store: s.quotas });
    const other = new QuotaBook({ config: [], store: s.quotas, ttlMs: 2_000, now: () => now });
    expect(await other.list()).toEqual([]);
    expect(other.empty).toBe(true);
    await mine.put(quotasSchema.parse([{ id: 'new', requests: { limit: 1, window: 1000 } }])[0]!);
    expect(await other.list()).toEqual([]);
    now += 2_000;
    // stale: the gate goes through the book again, which re-reads in the background
    expect(other.empty).toBe(false);
    await other.list();
    await other.refresh();
    expect((await other.list()).map((q) => q.id)).toEqual(['new']);
    await mine.delete('new');
    now += 2_000;
    await other.list();
    await other.refresh();
    expect(await other.list()).toEqual([]);
  });
});
