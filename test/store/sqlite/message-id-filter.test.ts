/**
 * The embedded store's filter of message ids (ADR 0063): a SendMessage idempotency lookup that the
 * filter proves absent skips its query; a key the database holds is always found, before and after
 * a restart, whether committed through the store or already in the file, during and after the
 * filter's build in chunks. The statement runs are counted as SQLite reports them (the connection's
 * trace of executed statements), not through a stand-in store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../../src/store/index.js';
import { MESSAGE_ID_BUILD_CHUNK, MESSAGE_ID_SQL } from '../../../src/store/sqlite/stored-message-ids.js';
import { MessageIdFilter } from '../../../src/store/message-id-filter.js';
import { ConcurrentUpdateError, type TaskCommit } from '../../../src/store/store.js';
import { newTask } from '../fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'agentport-msgid-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
const newFile = (): string => join(dir, `s${files++}.db`);

/** A store on `file` whose executed statements are recorded (their SQL, values filled in). */
async function openTraced(file: string): Promise<{ store: SqliteStore; ran: string[] }> {
  const ran: string[] = [];
  const store = await openSqliteStore({ file, checkpointThread: false, onStatement: (sql) => ran.push(sql) });
  await store.migrate();
  return { store, ran };
}

/** How many idempotency lookups SQLite ran for this messageId (the select on origin_message_id with it bound). */
const lookupsOf = (ran: string[], messageId: string): number => ran.filter((s) => /^select .* from "tasks" where /.test(s) && s.includes(`"origin_message_id" = '${messageId}'`)).length;

const keyed = (agentId: string, owner: string, messageId: string): TaskCommit => ({ ...newTask({ agentId, owner }), originMessageId: messageId });

async function untilBuilt(store: SqliteStore): Promise<void> {
  for (let i = 0; i < 10_000 && store.messageIdFilterStatus().build === 'running'; i++) await new Promise((r) => setImmediate(r));
  expect(store.messageIdFilterStatus().build).toBe('complete');
}

describe('MessageIdFilter (the Bloom filter alone)', () => {
  it('never calls a key it was given absent, across several layers', () => {
    const f = new MessageIdFilter();
    const n = 300_000; // past the first layers (65,536, then 131,072, then 262,144)
    for (let i = 0; i < n; i++) f.add(`agent-${i % 3}`, `owner-${i % 7}`, `m-${i}`);
    expect(f.stats()).toMatchObject({ keys: n, layers: 3 });
    for (let i = 0; i < n; i++) if (!f.mayHold(`agent-${i % 3}`, `owner-${i % 7}`, `m-${i}`)) throw new Error(`key ${i} called absent`);
  });

  it('calls about 2^-7 of absent keys "maybe" when its one layer is full, and keys apart by agent, owner or boundary apart', () => {
    const f = new MessageIdFilter();
    const n = 65_536;
    for (let i = 0; i < n; i++) f.add('echo', 'anon', `m-${i}`);
    expect(f.stats().layers).toBe(1);
    let maybe = 0;
    const probes = 200_000;
    for (let i = 0; i < probes; i++) if (f.mayHold('echo', 'anon', `absent-${i}`)) maybe++;
    // a Bloom filter of 7 hashes at k / ln 2 bits a key: (1/2)^7 = 0.78 % (sd ~0.02 % over 200k probes)
    expect(maybe / probes).toBeGreaterThan(0.006);
    expect(maybe / probes).toBeLessThan(0.0095);
    let other = 0;
    for (let i = 0; i < 10_000; i++) {
      if (f.mayHold('echo2', 'anon', `m-${i}`)) other++;
      if (f.mayHold('echo', 'anon2', `m-${i}`)) other++;
      if (f.mayHold('echoa', 'non', `m-${i}`)) other++;
    }
    expect(other / 30_000).toBeLessThan(0.0095);
    // 65,536 keys × 7 / ln 2 bits, in 32-bit words: 661,838 bits → 20,683 words
    expect(f.stats().bytes).toBe(20_683 * 4);
  });

  it('knows nothing before its first key', () => {
    expect(new MessageIdFilter().mayHold('a', 'b', 'c')).toBe(false);
  });

  it('never calls a key with a UTF-16 surrogate in any of its strings absent', () => {
    const f = new MessageIdFilter();
    f.add('echo', 'alice', 'm-1');
    for (const k of [
      ['echo', 'alice', 'x\ud800'],
      ['echo', 'alice', '\udfff'],
      ['echo', 'al\udc00ice', 'm-2'],
      ['e\ud83d\ude00', 'alice', 'm-3'],
      ['echo', 'alice', '\ud83d\ude00'],
    ] as const) {
      expect(f.mayHold(k[0], k[1], k[2]), JSON.stringify(k)).toBe(true);
    }
    // the code units around the surrogate range are ordinary
    expect([f.mayHold('echo', 'alice', '\ud7ff'), f.mayHold('echo', 'alice', '\ue000')]).toEqual([false, false]);
  });
});

describe('SqliteStore.findTaskByMessageId with the filter', () => {
  it('skips the query for an absent key once built, runs it for a stored one, and finds a task committed after the build', async () => {
    const { store, ran } = await openTraced(newFile());
    try {
      const before = keyed('echo', 'alice', 'm-before');
      await store.commit([before]);
      // the first lookup queries (nothing built yet) and starts the build
      expect(await store.findTaskByMessageId('echo', 'alice', 'm-absent-0')).toBeUndefined();
      expect(lookupsOf(ran, 'm-absent-0')).toBe(1);
      await untilBuilt(store);

      for (let i = 1; i <= 50; i++) expect(await store.findTaskByMessageId('echo', 'alice', `m-absent-${i}`)).toBeUndefined();
      const queried = Array.from({ length: 50 }, (_, i) => lookupsOf(ran, `m-absent-${i + 1}`)).reduce((a, b) => a + b, 0);
      // 50 absent keys at a false-positive rate below 1 %: none, or very rarely one, is queried
      expect(queried).toBeLessThanOrEqual(1);

      expect((await store.findTaskByMessageId('echo', 'alice', 'm-before'))?.task.id).toBe(before.task.id);
      expect(lookupsOf(ran, 'm-before')).toBe(1);
      // committed after the build: commit() adds it
      const after = keyed('echo', 'alice', 'm-after');
      await store.commit([after]);
      expect((await store.findTaskByMessageId('echo', 'alice', 'm-after'))?.task.id).toBe(after.task.id);
      // a second task with the key is refused, and the first is what the key finds (run-supervisor's duplicate path)
      await expect(store.commit([keyed('echo', 'alice', 'm-after')])).rejects.toBeInstanceOf(ConcurrentUpdateError);
      expect((await store.findTaskByMessageId('echo', 'alice', 'm-after'))?.task.id).toBe(after.task.id);
      // another agent or owner with the same messageId is another key
      expect(await store.findTaskByMessageId('echo', 'bob', 'm-after')).toBeUndefined();
      expect(await store.findTaskByMessageId('other', 'alice', 'm-after')).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('finds every stored task after a restart: queried until the build is complete, then through the filter', async () => {
    const file = newFile();
    const made: TaskCommit[] = [];
    {
      const { store } = await openTraced(file);
      for (let i = 0; i < 20; i++) made.push(keyed(`agent-${i % 2}`, `owner-${i % 3}`, `r-${i}`));
      await store.commit(made.slice(0, 10));
      await store.findTaskByMessageId('agent-0', 'owner-0', 'nothing');
      await untilBuilt(store);
      await store.commit(made.slice(10));
      await store.close();
    }
    const { store, ran } = await openTraced(file);
    try {
      // before any build: every stored key is found (by query)
      expect(store.messageIdFilterStatus().build).toBe('not started');
      for (const t of made) expect((await store.findTaskByMessageId(t.agentId, t.owner, t.originMessageId!))?.task.id).toBe(t.task.id);
      expect(store.messageIdFilterStatus().build).toBe('running');
      await untilBuilt(store);
      expect(store.messageIdFilterStatus().keys).toBe(20);
      for (const t of made) expect((await store.findTaskByMessageId(t.agentId, t.owner, t.originMessageId!))?.task.id).toBe(t.task.id);
      expect(made.map((t) => lookupsOf(ran, t.originMessageId!))).toEqual(made.map(() => 2));
    } finally {
      await store.close();
    }
  });

  it('finds after a restart a key whose strings SQLite does not give back as they were bound (lone surrogates), or with NUL and astral characters', async () => {
    const file = newFile();
    // A lone surrogate is stored as its 3 bytes (ED A0 80) and read back as 3 × U+FFFD: the build
    // cannot hash the key as the lookup's caller sends it, and the query still matches it.
    const odd = [keyed('echo', 'alice', 'lone-\ud800'), keyed('echo', 'bob\udc00', 'low'), keyed('echo', 'alice', 'nul-\u0000-x'), keyed('echo', 'alice', 'astral-\ud83d\ude00')];
    {
      const { store } = await openTraced(file);
      await store.commit(odd);
      await store.close();
    }
    const { store } = await openTraced(file);
    try {
      await store.findTaskByMessageId('echo', 'alice', 'first');
      await untilBuilt(store);
      for (const t of odd) expect((await store.findTaskByMessageId(t.agentId, t.owner, t.originMessageId!))?.task.id, JSON.stringify(t.originMessageId)).toBe(t.task.id);
      // what SQLite gives back is another key: not found (by query or by the filter)
      expect(await store.findTaskByMessageId('echo', 'alice', 'lone-\ufffd\ufffd\ufffd')).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('builds a large store in chunks, the event loop turning between them, and keeps keys committed while it runs', async () => {
    const file = newFile();
    const stored = 2 * MESSAGE_ID_BUILD_CHUNK + 500;
    {
      const { store } = await openTraced(file);
      await store.close();
    }
    // Written by another connection before the store opens (as a predecessor process would have).
    const other = new Sqlite(file);
    const insert = other.prepare(
      `insert into tasks (id, agent_id, owner, context_id, state, status_time, created_at, seq, version, task, origin_message_id) values (?, ?, 'alice', 'c', 'TASK_STATE_COMPLETED', 0, 0, 1, 1, ?, ?)`,
    );
    other.transaction(() => {
      const task = (id: string) => JSON.stringify({ id, contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } });
      for (let i = 0; i < stored; i++) insert.run(`t-${i}`, i % 2 === 0 ? 'big-a' : 'big-b', task(`t-${i}`), `k-${String(i).padStart(5, '0')}`);
      // tasks without a key (an engine without deduplication) are not read
      for (let i = 0; i < 100; i++) insert.run(`n-${i}`, 'big-a', task(`n-${i}`), null);
    })();
    other.close();

    const { store, ran } = await openTraced(file);
    const chunkReads = (): string[] => ran.filter((s) => s.startsWith('select agent_id, owner, origin_message_id from tasks'));
    try {
      expect(await store.findTaskByMessageId('big-a', 'alice', 'k-00000')).toBeDefined();
      await new Promise((r) => setImmediate(r));
      expect(chunkReads()).toHaveLength(1);
      expect(store.messageIdFilterStatus()).toMatchObject({ build: 'running', keys: MESSAGE_ID_BUILD_CHUNK });
      // committed while the build runs: one sorting before the build's cursor, one after
      const early = keyed('a-early', 'alice', 'k-early');
      const late = keyed('zz-late', 'alice', 'k-late');
      await store.commit([early, late]);
      await untilBuilt(store);
      // the stored keys in chunks (the last one short), then nothing more
      expect(chunkReads()).toHaveLength(3);
      // added: the stored keys, the two commits, and the late one again (it sorts after the cursor: the build reads it too)
      expect(store.messageIdFilterStatus().keys).toBe(stored + 2 + 1);
      for (let i = 0; i < stored; i++) {
        const messageId = `k-${String(i).padStart(5, '0')}`;
        const found = await store.findTaskByMessageId(i % 2 === 0 ? 'big-a' : 'big-b', 'alice', messageId);
        if (found?.task.id !== `t-${i}`) throw new Error(`${messageId}: found ${found?.task.id}`);
      }
      expect((await store.findTaskByMessageId('a-early', 'alice', 'k-early'))?.task.id).toBe(early.task.id);
      expect((await store.findTaskByMessageId('zz-late', 'alice', 'k-late'))?.task.id).toBe(late.task.id);
    } finally {
      await store.close();
    }
  });

  it('misses no key after a chunk that ends on a lone surrogate (read back as U+FFFD, which sorts after keys the file holds)', async () => {
    const file = newFile();
    const { store: first } = await openTraced(file);
    // index order: k-00000 … k-01998, then 'k-01999' + ED A0 80 (the first chunk's last key), then
    // 'k-01999' + EE 80 80, below what the first key reads back as ('k-01999' + EF BF BD)
    const made = Array.from({ length: MESSAGE_ID_BUILD_CHUNK - 1 }, (_, i) => keyed('big', 'alice', `k-${String(i).padStart(5, '0')}`));
    const lone = keyed('big', 'alice', 'k-01999\ud800');
    const between = keyed('big', 'alice', 'k-01999\ue000');
    await first.commit([...made, lone, between, keyed('big', 'alice', 'k-02000')]);
    await first.close();
    const { store } = await openTraced(file);
    try {
      await store.findTaskByMessageId('big', 'alice', 'first');
      await untilBuilt(store);
      expect((await store.findTaskByMessageId('big', 'alice', 'k-01999\ue000'))?.task.id).toBe(between.task.id);
      expect((await store.findTaskByMessageId('big', 'alice', 'k-01999\ud800'))?.task.id).toBe(lone.task.id);
    } finally {
      await store.close();
    }
  });

  it('gives the build up when a whole chunk reads back with U+FFFD (no exact cursor): every lookup then queries', async () => {
    const file = newFile();
    const { store: first } = await openTraced(file);
    const made = Array.from({ length: MESSAGE_ID_BUILD_CHUNK + 1 }, (_, i) => keyed('odd', 'alice', `\ud800-${String(i).padStart(5, '0')}`));
    await first.commit(made);
    await first.close();
    const { store, ran } = await openTraced(file);
    try {
      await store.findTaskByMessageId('odd', 'alice', 'first');
      for (let i = 0; i < 100 && store.messageIdFilterStatus().build === 'running'; i++) await new Promise((r) => setImmediate(r));
      expect(store.messageIdFilterStatus().build).toBe('failed');
      expect((await store.findTaskByMessageId('odd', 'alice', made.at(-1)!.originMessageId!))?.task.id).toBe(made.at(-1)!.task.id);
      expect(await store.findTaskByMessageId('odd', 'alice', 'plain-absent')).toBeUndefined();
      expect(lookupsOf(ran, 'plain-absent')).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('on a file another connection writes too (sharedFile), never builds and always queries', async () => {
    const file = newFile();
    const writer = await openTraced(file);
    const ran: string[] = [];
    const reader = await openSqliteStore({ file, checkpointThread: false, sharedFile: true, onStatement: (sql) => ran.push(sql) });
    try {
      expect(await reader.findTaskByMessageId('echo', 'alice', 'shared-1')).toBeUndefined();
      await new Promise((r) => setImmediate(r));
      expect(reader.messageIdFilterStatus().build).toBe('off');
      const t = keyed('echo', 'alice', 'shared-1');
      await writer.store.commit([t]);
      expect((await reader.findTaskByMessageId('echo', 'alice', 'shared-1'))?.task.id).toBe(t.task.id);
      expect(await reader.findTaskByMessageId('echo', 'alice', 'shared-2')).toBeUndefined();
      expect([lookupsOf(ran, 'shared-1'), lookupsOf(ran, 'shared-2')]).toEqual([2, 1]);
    } finally {
      await reader.close();
      await writer.store.close();
    }
  });

  it('reads the keys through the covering unique index, after the last key read (EXPLAIN QUERY PLAN)', async () => {
    const file = newFile();
    const { store } = await openTraced(file);
    await store.close();
    const raw = new Sqlite(file);
    try {
      const plan = (text: string) => (raw.prepare(`explain query plan ${text}`).all(...Array.from({ length: (text.match(/\?/g) ?? []).length }, () => 'x')) as { detail: string }[]).map((r) => r.detail).join('; ');
      expect(plan(MESSAGE_ID_SQL.firstMessageIds)).toMatch(/^SCAN tasks USING COVERING INDEX tasks_origin_message_idx$/);
      expect(plan(MESSAGE_ID_SQL.nextMessageIds)).toMatch(/^SEARCH tasks USING COVERING INDEX tasks_origin_message_idx \(\(agent_id,owner,origin_message_id\)>\(\?,\?,\?\)\)$/);
    } finally {
      raw.close();
    }
  });
});
