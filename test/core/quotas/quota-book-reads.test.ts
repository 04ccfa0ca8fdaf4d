/**
 * When the quota book (src/core/quotas/quota-book.ts) reads the database, and what it answers
 * without one: the default re-read interval, one read at a time, a failed background re-read that
 * keeps the last quotas, a stored quota shadowed by the file's, and the `empty` gate's cases.
 * The store is a real SQLite one, counted and made to fail by a thin wrapper.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { quotasSchema } from '../../../src/config/usage-schema.js';
import { QuotaBook, QuotaConfigConflict } from '../../../src/core/quotas/quota-book.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/index.js';
import type { QuotaStore, StoredQuota } from '../../../src/store/quota-store.js';

let store: SqliteStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

/** The real store, with its reads counted and a switch that makes the next reads fail. */
class CountedStore implements QuotaStore {
  reads = 0;
  failReads = false;
  constructor(private readonly inner: QuotaStore) {}
  async listQuotas(): Promise<StoredQuota[]> {
    this.reads += 1;
    if (this.failReads) throw new Error('database down');
    return this.inner.listQuotas();
  }
  putQuota(...a: Parameters<QuotaStore['putQuota']>): Promise<void> {
    return this.inner.putQuota(...a);
  }
  deleteQuota(id: string): Promise<boolean> {
    return this.inner.deleteQuota(id);
  }
}

async function counted(): Promise<CountedStore> {
  store = await openSqliteStore({ file: ':memory:' });
  await store.migrate();
  return new CountedStore(store.quotas);
}

const quota = (o: object) => quotasSchema.parse([o])[0]!;
const fileQuota = quota({ id: 'from-file', requests: { limit: 10, window: 60_000 } });

describe('quota book without a database', () => {
  it('lists the file’s quotas, frozen and marked as config', async () => {
    const book = new QuotaBook({ config: [fileQuota] });
    const list = await book.list();
    expect(list).toEqual([{ ...fileQuota, source: 'config' }]);
    expect(Object.isFrozen(list[0])).toBe(true);
    expect(book.empty).toBe(false);
  });

  it('is empty with no quota in the file, and keeps no API quota', async () => {
    const book = new QuotaBook({ config: [] });
    expect(book.empty).toBe(true);
    expect(await book.list()).toEqual([]);
    await expect(book.put(quota({ id: 'x', concurrentTasks: 1 }))).rejects.toThrow('quotas: no database to keep API quotas in');
    await expect(book.delete('x')).rejects.toThrow('quotas: no database to keep API quotas in');
  });
});

describe('quota book reads', () => {
  it('names the quota of the file an API change would touch', async () => {
    const book = new QuotaBook({ config: [fileQuota], store: await counted() });
    const err = await book.delete('from-file').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QuotaConfigConflict);
    expect(err).toMatchObject({
      id: 'from-file',
      name: 'QuotaConfigConflict',
      message: "quota 'from-file' is set in the configuration file and cannot be changed through the API",
    });
  });

  it('waits for the first read, then re-reads after the default 2 s, not before', async () => {
    const s = await counted();
    await s.putQuota(quota({ id: 'stored', concurrentTasks: 1 }), 0);
    let now = 5_000_000;
    const book = new QuotaBook({ config: [], store: s, now: () => now });
    expect(book.empty).toBe(false); // nothing read yet: the gate cannot skip quotas
    expect((await book.list()).map((q) => [q.id, q.source])).toEqual([['stored', 'api']]);
    expect(s.reads).toBe(1);
    now += 1_999;
    await book.list();
    expect(s.reads).toBe(1);
    now += 1;
    await book.list();
    expect(s.reads).toBe(2);
    await book.refresh();
  });

  it('is empty after a read that found nothing, until its copy is stale', async () => {
    let now = 0;
    const book = new QuotaBook({ config: [], store: await counted(), ttlMs: 1_000, now: () => now });
    await book.list();
    expect(book.empty).toBe(true);
    now = 999;
    expect(book.empty).toBe(true);
    now = 1_000;
    expect(book.empty).toBe(false);
  });

  it('a book with quotas in force is not empty, fresh or not', async () => {
    const s = await counted();
    await s.putQuota(quota({ id: 'stored', concurrentTasks: 1 }), 0);
    const book = new QuotaBook({ config: [], store: s, ttlMs: 1_000, now: () => 0 });
    await book.list();
    expect(book.empty).toBe(false);
  });

  it('reads once for calls that ask at the same time, and again when asked after', async () => {
    const s = await counted();
    const book = new QuotaBook({ config: [], store: s });
    const first = book.refresh();
    const second = book.refresh();
    expect(second).toBe(first);
    await Promise.all([first, second]);
    expect(s.reads).toBe(1);
    await book.refresh();
    expect(s.reads).toBe(2);
  });

  it('keeps the last quotas read when a background re-read fails, and says so', async () => {
    const s = await counted();
    await s.putQuota(quota({ id: 'stored', concurrentTasks: 1 }), 0);
    let now = 0;
    const warnings: Array<[object, string | undefined]> = [];
    const book = new QuotaBook({ config: [], store: s, ttlMs: 1_000, now: () => now, log: { warn: (obj, msg) => warnings.push([obj, msg]) } });
    await book.list();
    s.failReads = true;
    now = 1_000;
    expect((await book.list()).map((q) => q.id)).toEqual(['stored']);
    await book.refresh().catch(() => undefined);
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]![1]).toBe('quotas: could not re-read the quotas of the database; the last ones read stay in force');
    expect((warnings[0]![0] as { err: Error }).err.message).toBe('database down');
    expect((await book.list()).map((q) => q.id)).toEqual(['stored']);
  });

  it('a failed background re-read without a logger is dropped quietly', async () => {
    const s = await counted();
    let now = 0;
    const book = new QuotaBook({ config: [], store: s, ttlMs: 1_000, now: () => now });
    await book.list();
    s.failReads = true;
    now = 1_000;
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      expect(await book.list()).toEqual([]);
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
    expect(s.reads).toBe(2);
  });

  it('a stored quota whose id the file uses is shadowed by the file’s', async () => {
    const s = await counted();
    await s.putQuota(quota({ id: 'from-file', concurrentTasks: 1 }), 0);
    await s.putQuota(quota({ id: 'own', concurrentTasks: 2 }), 0);
    const book = new QuotaBook({ config: [fileQuota], store: s });
    expect(await book.list()).toEqual([
      { ...fileQuota, source: 'config' },
      { ...quota({ id: 'own', concurrentTasks: 2 }), source: 'api' },
    ]);
  });

  it('put answers the quota it stored, among others, as an API quota', async () => {
    const s = await counted();
    await s.putQuota(quota({ id: 'a', concurrentTasks: 1 }), 0);
    await s.putQuota(quota({ id: 'c', concurrentTasks: 3 }), 0);
    const book = new QuotaBook({ config: [fileQuota], store: s });
    const put = await book.put(quota({ id: 'b', concurrentTasks: 2 }));
    expect(put).toEqual({ ...quota({ id: 'b', concurrentTasks: 2 }), source: 'api' });
    expect(Object.isFrozen(put)).toBe(true);
    expect(await book.delete('b')).toBe(true);
    expect((await book.list()).map((q) => q.id)).toEqual(['from-file', 'a', 'c']);
  });
});
