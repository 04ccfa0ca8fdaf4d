/**
 * The audit log's store against real SQLite and real PostgreSQL: the chain appends and verifies,
 * an edited or deleted row is named by verify, appenders on two PG store instances build one
 * linear chain, and the list filters.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { GENESIS_HASH } from '../../src/store/audit-chain.js';
import type { AuditAppend } from '../../src/store/audit-store.js';
import { openPostgresStore, openSqliteStore, type Store } from '../../src/store/index.js';
import { postgresTemplate, sqliteTemplate, type PostgresTemplate } from '../support/store-templates.js';

const pgUrl = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const dir = mkdtempSync(join(tmpdir(), 'agentport-audit-'));
const run = `t_audit_${randomBytes(4).toString('hex')}`;
const schemas: string[] = [];
let n = 0;
// Each harness's database starts as a copy of one migrated once (test/support/store-templates.ts).
const copyMigrated = sqliteTemplate(dir);
let pgTemplate: Promise<PostgresTemplate> | undefined;
const migratedPostgresTemplate = () => {
  if (!pgTemplate) {
    schemas.push(`${run}_template`);
    pgTemplate = postgresTemplate(pgUrl, `${run}_template`);
  }
  return pgTemplate;
};

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await (await pgTemplate?.catch(() => undefined))?.close();
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    for (const s of schemas) await client.query(`drop schema if exists "${s}" cascade`);
  } finally {
    await client.end();
  }
});

interface Harness {
  open(): Promise<Store>;
  /** a second store instance on the same database */
  openPeer(): Promise<Store>;
  /** raw SQL on the database, beside the store */
  exec(text: string): Promise<void>;
}

function sqliteHarness(): Harness {
  const file = join(dir, `audit-${n++}.db`);
  let copied: Promise<void> | undefined;
  return {
    open: async () => {
      copied ??= copyMigrated(file);
      await copied;
      return openSqliteStore({ file });
    },
    openPeer: () => openSqliteStore({ file }),
    exec: async (text) => {
      const raw = new Sqlite(file);
      try {
        raw.exec(text);
      } finally {
        raw.close();
      }
    },
  };
}

function postgresHarness(): Harness {
  const schema = `${run}_${schemas.length}`;
  schemas.push(schema);
  let cloned: Promise<void> | undefined;
  const open = async () => {
    cloned ??= migratedPostgresTemplate().then((t) => t.cloneInto(schema));
    await cloned;
    return openPostgresStore({ connectionString: pgUrl, schema, connectionTimeoutMs: 5000 });
  };
  return {
    open,
    openPeer: open,
    exec: async (text) => {
      const client = new pg.Client({ connectionString: pgUrl, options: `-c search_path=${schema}` });
      await client.connect();
      try {
        await client.query(text);
      } finally {
        await client.end();
      }
    },
  };
}

function event(i: number, over: Partial<AuditAppend> = {}): AuditAppend {
  return { time: 1_700_000_000_000 + i, replica: 'r1', action: 'apikey.created', outcome: 'success', actor: 'alice', target: `apikey:k${i}`, details: { b: 2, a: [i] }, ...over };
}

for (const [name, harness] of [
  ['sqlite', sqliteHarness],
  ['postgres', postgresHarness],
] as const) {
  describe(`audit store (${name})`, () => {
    async function withStore<T>(h: Harness, fn: (s: Store) => Promise<T>): Promise<T> {
      const store = await h.open();
      try {
        await store.migrate();
        return await fn(store);
      } finally {
        await store.close();
      }
    }

    it('chains appended records from the genesis hash and verifies them', async () => {
      await withStore(harness(), async (store) => {
        const first = await store.audit.append([event(1), event(2)]);
        const second = await store.audit.append([event(3, { actorClient: 'cli', clientAddress: '10.0.0.1', userAgent: 'ua', requestId: 'req-1' })]);
        expect([...first, ...second].map((r) => r.seq)).toEqual([1, 2, 3]);
        expect(first[0]!.prevHash).toBe(GENESIS_HASH);
        expect(first[1]!.prevHash).toBe(first[0]!.hash);
        expect(second[0]!.prevHash).toBe(first[1]!.hash);
        // The hash is reproducible from the documented serialization, with node:crypto directly
        // (not the module's own hash function, which could never disagree with itself).
        const documented = [
          'agentport-audit-v1\n',
          JSON.stringify([3, 1_700_000_000_003, 'r1', 'apikey.created', 'success', 'alice', 'cli', 'apikey:k3', '10.0.0.1', 'ua', 'req-1', '{"a":[3],"b":2}', first[1]!.hash]),
        ].join('');
        expect(second[0]!.hash).toBe(createHash('sha256').update(documented).digest('hex'));
        expect(await store.audit.verify(2)).toEqual({ ok: true, count: 3, lastSeq: 3, lastHash: second[0]!.hash });
        const listed = await store.audit.list({ limit: 10 });
        expect(listed).toEqual([...first, ...second]);
      });
    });

    it('verifies an empty log', async () => {
      await withStore(harness(), async (store) => {
        expect(await store.audit.verify()).toEqual({ ok: true, count: 0, lastSeq: 0, lastHash: GENESIS_HASH });
      });
    });

    it('names the seq of a row edited in the database', async () => {
      const h = harness();
      await withStore(h, async (store) => {
        await store.audit.append([1, 2, 3, 4, 5].map((i) => event(i)));
        await h.exec(`update audit_log set actor = 'mallory' where seq = 3`);
        expect(await store.audit.verify(2)).toMatchObject({ ok: false, seq: 3, problem: 'hash-mismatch', count: 2 });
      });
    });

    it('names a row whose stored hash was overwritten', async () => {
      const h = harness();
      await withStore(h, async (store) => {
        await store.audit.append([1, 2, 3].map((i) => event(i)));
        await h.exec(`update audit_log set hash = '${'f'.repeat(64)}' where seq = 2`);
        const result = await store.audit.verify();
        expect(result).toMatchObject({ ok: false, seq: 2, problem: 'hash-mismatch' });
      });
    });

    it('names the missing seq of a deleted row', async () => {
      const h = harness();
      await withStore(h, async (store) => {
        await store.audit.append([1, 2, 3, 4].map((i) => event(i)));
        await h.exec('delete from audit_log where seq = 2');
        expect(await store.audit.verify()).toMatchObject({ ok: false, seq: 2, problem: 'missing-row', count: 1 });
      });
    });

    it('names a first row that does not start from the genesis hash', async () => {
      const h = harness();
      await withStore(h, async (store) => {
        await store.audit.append([1, 2].map((i) => event(i)));
        // Renumbering after a delete hides the gap, not the broken link.
        await h.exec('delete from audit_log where seq = 1; update audit_log set seq = 1 where seq = 2');
        expect(await store.audit.verify()).toMatchObject({ ok: false, seq: 1, problem: 'prev-hash-mismatch' });
      });
    });

    it('filters by action, actor, target, outcome, time and seq, in seq order', async () => {
      await withStore(harness(), async (store) => {
        await store.audit.append([
          event(1, { action: 'signin.failed', outcome: 'failure', actor: 'anonymous', target: 'user:bob' }),
          event(2),
          event(3, { action: 'apikey.revoked', target: 'apikey:k2' }),
          event(4, { actor: 'bob' }),
        ]);
        const seqs = async (q: Parameters<Store['audit']['list']>[0]) => (await store.audit.list(q)).map((r) => r.seq);
        expect(await seqs({ action: 'apikey.created', limit: 10 })).toEqual([2, 4]);
        expect(await seqs({ actor: 'alice', limit: 10 })).toEqual([2, 3]);
        expect(await seqs({ target: 'apikey:k2', limit: 10 })).toEqual([2, 3]);
        expect(await seqs({ outcome: 'failure', limit: 10 })).toEqual([1]);
        expect(await seqs({ since: 1_700_000_000_002, until: 1_700_000_000_004, limit: 10 })).toEqual([2, 3]);
        expect(await seqs({ afterSeq: 2, limit: 1 })).toEqual([3]);
      });
    });

    it('keeps one linear chain when two store instances append at once', async () => {
      const h = harness();
      await withStore(h, async (store) => {
        const peer = await h.openPeer();
        try {
          // 20 batches from each instance, all started before any finished.
          const batches = Array.from({ length: 40 }, (_, i) => [event(i * 3, { replica: `r${i % 2}` }), event(i * 3 + 1), event(i * 3 + 2)]);
          await Promise.all(batches.map((b, i) => (i % 2 === 0 ? store : peer).audit.append(b)));
        } finally {
          await peer.close();
        }
        const result = await store.audit.verify(7);
        expect(result).toMatchObject({ ok: true, count: 120, lastSeq: 120 });
      });
    });
  });
}
