/**
 * Stored API keys read through the record cache (ADR 0052): a key used before is not read again
 * while the credentials generation stays the same, and every change to what it stands on, made by
 * another connection to the database (the CLI's), refuses or narrows it on the next request read
 * after the change, that is in a later event-loop turn (the generation is read once per turn, ADR
 * 0058: `nextRequest`): revocation, the owner deleted or made again under the same name, the
 * owner's scopes reduced, the grant revoked, shortened or swept. Expiry of the key or its grant
 * counts by the clock with no write at all, and the secret is compared on every call. On
 * PostgreSQL every call reads the store.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiKeyRecordCache } from '../../src/auth/api-key-record-cache.js';
import { createApiKey, StoredApiKeys, type ApiKeyLookup } from '../../src/auth/api-keys.js';
import { openPostgresStore, openSqliteStore, type Store } from '../../src/store/index.js';
import type { StoredApiKey } from '../../src/store/store.js';
import { inPollPhase, nextRequest } from '../support/event-loop-turns.js';
import { postgresTemplate, sqliteTemplate, type PostgresTemplate } from '../support/store-templates.js';

const PG = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const dir = mkdtempSync(path.join(tmpdir(), 'agentport-key-cache-'));
const schemas: string[] = [];
// Each test's database starts as a copy of one migrated once (test/support/store-templates.ts):
// a full migration per test was ten of them on PostgreSQL, each waiting on the database-wide
// migration lock that other files' migrations hold (issue 26).
const copyMigrated = sqliteTemplate(dir);
let pgTemplate: Promise<PostgresTemplate> | undefined;
const migratedPostgresTemplate = () => {
  if (!pgTemplate) {
    const template = `t_keycache_template_${randomBytes(4).toString('hex')}`;
    schemas.push(template);
    pgTemplate = postgresTemplate(PG, template);
  }
  return pgTemplate;
};

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await (await pgTemplate?.catch(() => undefined))?.close();
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  for (const s of schemas) await c.query(`drop schema if exists "${s}" cascade`);
  await c.end();
});

const outcome = (p: Promise<{ scopes: readonly string[] }>) =>
  p.then(
    (principal) => principal.scopes.join(' '),
    (e: Error) => e.message,
  );

/** The server's store, counted, and a second connection to the same data: the CLI, another process or replica. */
interface Setup {
  lookup: ApiKeyLookup;
  reads(): number;
  server: Store;
  other: Store;
  /** a statement on the other connection, for writes no store method makes on their own */
  otherSql(statement: string, ...params: unknown[]): Promise<void>;
  cached: boolean;
  close(): Promise<void>;
}

let n = 0;
const dialects: Array<[string, () => Promise<Setup>]> = [
  [
    'sqlite',
    async () => {
      const file = path.join(dir, `k${n++}.db`);
      await copyMigrated(file);
      const server = await openSqliteStore({ file });
      await server.migrate(); // nothing pending on the copy
      const other = await openSqliteStore({ file, checkpointThread: false });
      const raw = new Sqlite(file);
      return {
        ...counted(server),
        server,
        other,
        otherSql: async (statement, ...params) => void raw.prepare(statement).run(...params),
        cached: true,
        async close() {
          raw.close();
          await other.close();
          await server.close();
        },
      };
    },
  ],
  [
    'postgres',
    async () => {
      const schema = `t_keycache_${randomBytes(4).toString('hex')}`;
      schemas.push(schema);
      await (await migratedPostgresTemplate()).cloneInto(schema);
      const open = () => openPostgresStore({ connectionString: PG, schema, maxConnections: 2, connectionTimeoutMs: 5000 });
      const server = await open();
      await server.migrate(); // nothing pending on the copy
      const other = await open();
      const client = new pg.Client({ connectionString: PG, options: `-c search_path=${schema}` });
      await client.connect();
      return {
        ...counted(server),
        server,
        other,
        otherSql: async (statement, ...params) => {
          let i = 0;
          await client.query(
            statement.replace(/\?/g, () => `$${++i}`),
            params,
          );
        },
        cached: false,
        async close() {
          await client.end();
          await other.close();
          await server.close();
        },
      };
    },
  ],
];

function counted(store: Store): { lookup: ApiKeyLookup; reads(): number } {
  let reads = 0;
  const generation = store.credentialsGeneration?.bind(store);
  return {
    lookup: {
      getApiKey: (keyId) => {
        reads++;
        return store.getApiKey(keyId);
      },
      ...(generation ? { credentialsGeneration: generation } : {}),
    },
    reads: () => reads,
  };
}

const HOUR = 3_600_000;

/** What StoredApiKeys.answer gave: at once (a principal, or thrown) or later (a promise), and its outcome. */
async function answered(answer: () => { scopes: readonly string[] } | Promise<{ scopes: readonly string[] }>): Promise<string> {
  try {
    const a = answer();
    return a instanceof Promise ? `later: ${await outcome(a)}` : `at once: ${a.scopes.join(' ')}`;
  } catch (e) {
    return `at once: ${(e as Error).message}`;
  }
}

describe.each(dialects)('stored API keys through the record cache on %s', (_name, open) => {
  /** A key of `olga`'s (owner) or of a grant's, used twice, with the reads that took; `now` is the keys' clock. */
  async function usedKey(s: Setup, o: { owner?: boolean; grant?: boolean; expiresAt?: number; clock?: { now: number } }) {
    const clock = o.clock ?? { now: Date.now() };
    const t0 = clock.now;
    if (o.owner) await s.server.oauth.putUser({ username: 'olga', passwordHash: 'x', scopes: ['a2a:discover', 'a2a:publish'], createdAt: t0 - 1000 });
    if (o.grant) await s.server.oauth.upsertRecord('Grant', 'g-1', { payload: { accountId: 'up#1', clientId: 'agentport-console' }, expiresAt: t0 + HOUR });
    const made = createApiKey({
      subject: o.owner ? 'olga' : 'up#1',
      scopes: ['a2a:discover', 'a2a:publish'],
      now: t0,
      ...(o.owner ? { owner: 'olga' } : {}),
      ...(o.grant ? { grantId: 'g-1' } : {}),
      ...(o.expiresAt === undefined ? {} : { expiresAt: o.expiresAt }),
    });
    await s.server.putApiKey(made.record);
    const keys = new StoredApiKeys(s.lookup, () => clock.now);
    expect(await outcome(keys.authenticate(made.key))).toBe('a2a:discover a2a:publish');
    expect(await outcome(keys.authenticate(made.key))).toBe('a2a:discover a2a:publish');
    // The second use was served from the cache where there is one: what follows tests a cached record.
    expect(s.reads()).toBe(s.cached ? 1 : 2);
    return { keys, made, clock };
  }

  async function scenario(fn: (s: Setup) => Promise<void>): Promise<void> {
    const s = await open();
    try {
      await fn(s);
    } finally {
      await s.close();
    }
  }

  it('refuses a cached key on the next request once another connection revoked it (agentport keys revoke)', () =>
    scenario(async (s) => {
      const { keys, made } = await usedKey(s, {});
      expect(await s.other.revokeApiKey(made.record.keyId, Date.now())).toBe(true);
      await nextRequest();
      expect(await outcome(keys.authenticate(made.key))).toBe('The API key has been revoked');
    }));

  it('refuses a cached key whose owner row another connection deleted, and when a new user takes the name', () =>
    scenario(async (s) => {
      const { keys, made } = await usedKey(s, { owner: true });
      // The row alone (no revocation of the key with it): the join must see the owner gone.
      await s.otherSql('delete from users where username = ?', 'olga');
      await nextRequest();
      expect(await outcome(keys.authenticate(made.key))).toMatch(/the user who made it no longer exists/);
      await s.other.oauth.putUser({ username: 'olga', passwordHash: 'y', scopes: ['a2a:discover', 'a2a:publish'], createdAt: Date.now() + 1 });
      await nextRequest();
      expect(await outcome(keys.authenticate(made.key))).toMatch(/the user who made it no longer exists/);
    }));

  it("refuses a cached key once another connection deleted its owner through the store (which revokes the owner's keys)", () =>
    scenario(async (s) => {
      const { keys, made } = await usedKey(s, { owner: true });
      expect(await s.other.oauth.deleteUser('olga')).toBe(true);
      await nextRequest();
      expect(await outcome(keys.authenticate(made.key))).toMatch(/revoked/);
    }));

  it("narrows a cached key to its owner's scopes as soon as another connection reduces them", () =>
    scenario(async (s) => {
      const { keys, made } = await usedKey(s, { owner: true });
      expect(await s.other.oauth.setUserScopes('olga', ['a2a:discover'])).toBe(true);
      await nextRequest();
      expect(await outcome(keys.authenticate(made.key))).toBe('a2a:discover');
    }));

  it('refuses a cached key once another connection revoked its grant, shortened it, or swept it', async () => {
    await scenario(async (s) => {
      const { keys, made } = await usedKey(s, { grant: true });
      await s.other.oauth.revokeRecordsOfGrant('g-1', Date.now());
      await nextRequest();
      expect(await outcome(keys.authenticate(made.key))).toMatch(/sign-in it was made through has ended/);
    });
    await scenario(async (s) => {
      const { keys, made } = await usedKey(s, { grant: true });
      // ended long ago, whatever the keys' clock says
      await s.otherSql(`update oauth_records set expires_at = ? where model = 'Grant' and id = ?`, 1, 'g-1');
      await nextRequest();
      expect(await outcome(keys.authenticate(made.key))).toMatch(/sign-in it was made through has ended/);
    });
    await scenario(async (s) => {
      const { keys, made } = await usedKey(s, { grant: true });
      await s.otherSql(`delete from oauth_records where model = 'Grant' and id = ?`, 'g-1');
      await nextRequest();
      expect(await outcome(keys.authenticate(made.key))).toMatch(/sign-in it was made through has ended/);
    });
  });

  it('refuses a cached key, and one whose grant is cached, once the clock passes their expiry, with no write', async () => {
    await scenario(async (s) => {
      const clock = { now: Date.now() };
      const { keys, made } = await usedKey(s, { clock, expiresAt: clock.now + HOUR });
      clock.now += HOUR;
      expect(await outcome(keys.authenticate(made.key))).toBe('The API key has expired');
    });
    await scenario(async (s) => {
      const clock = { now: Date.now() };
      const { keys, made } = await usedKey(s, { clock, grant: true });
      clock.now += HOUR;
      expect(await outcome(keys.authenticate(made.key))).toMatch(/sign-in it was made through has ended/);
    });
  });

  it('refuses a wrong secret for a cached key id, and still accepts the right one after', () =>
    scenario(async (s) => {
      const { keys, made } = await usedKey(s, {});
      const forged = `ap_${made.record.keyId}_${randomBytes(32).toString('base64url')}`;
      expect(await outcome(keys.authenticate(forged))).toBe('The API key is not valid');
      expect(await outcome(keys.authenticate(made.key))).toBe('a2a:discover a2a:publish');
    }));

  it('answers a kept key at once (no promise) by the same checks: a wrong secret or expiry refused at once, a revocation from the next request on (issue 26)', () =>
    scenario(async (s) => {
      const clock = { now: Date.now() };
      const { keys, made } = await usedKey(s, { clock, expiresAt: clock.now + HOUR });
      const when = s.cached ? 'at once' : 'later';
      expect(await answered(() => keys.answer(made.key))).toBe(`${when}: a2a:discover a2a:publish`);
      const forged = `ap_${made.record.keyId}_${randomBytes(32).toString('base64url')}`;
      expect(await answered(() => keys.answer(forged))).toBe(`${when}: The API key is not valid`);
      expect(await answered(() => keys.answer(`${made.key}x`))).toBe('at once: The API key is malformed');
      clock.now += HOUR;
      expect(await answered(() => keys.answer(made.key))).toBe(`${when}: The API key has expired`);
      clock.now -= HOUR;
      expect(await s.other.revokeApiKey(made.record.keyId, Date.now())).toBe(true);
      await nextRequest();
      // The generation moved: the record is read again (a promise), and refused.
      expect(await answered(() => keys.answer(made.key))).toBe('later: The API key has been revoked');
      expect(await answered(() => keys.answer(made.key))).toBe(`${when}: The API key has been revoked`);
    }));
});

describe('the credentials generation read once per event-loop turn (SQLite, ADR 0058)', () => {
  it('is shared by the requests of one poll phase; a revocation by another connection counts from the next turn', async () => {
    const file = path.join(dir, `turn${n++}.db`);
    const server = await openSqliteStore({ file });
    await server.migrate();
    const other = await openSqliteStore({ file, checkpointThread: false });
    try {
      const made = createApiKey({ subject: 'ci-bot', scopes: ['a2a:publish'] });
      await server.putApiKey(made.record);
      let generationReads = 0;
      const keys = new StoredApiKeys({
        getApiKey: (id) => server.getApiKey(id),
        credentialsGeneration: () => {
          generationReads++;
          return server.credentialsGeneration();
        },
      });
      // Outside a turn (this macrotask asks for one): every call reads.
      expect(await outcome(keys.authenticate(made.key))).toBe('a2a:publish');
      expect(await outcome(keys.authenticate(made.key))).toBe('a2a:publish');
      expect(generationReads).toBe(2);
      const inTurn = await inPollPhase(async () => {
        const before = generationReads;
        const answers = [];
        for (let i = 0; i < 5; i++) answers.push(await outcome(keys.authenticate(made.key)));
        // Revoked during the turn: concurrent with the requests read in it, which keep its read.
        expect(await other.revokeApiKey(made.record.keyId, Date.now())).toBe(true);
        answers.push(await outcome(keys.authenticate(made.key)));
        return { answers, reads: generationReads - before };
      });
      expect(inTurn.reads).toBe(1);
      expect(inTurn.answers).toEqual(Array(6).fill('a2a:publish'));
      await nextRequest();
      expect(await outcome(keys.authenticate(made.key))).toBe('The API key has been revoked');
      // and in the next poll phase's turn too
      expect(await inPollPhase(() => outcome(keys.authenticate(made.key)))).toBe('The API key has been revoked');
    } finally {
      await other.close();
      await server.close();
    }
  });
});

describe('ApiKeyRecordCache', () => {
  const record = (keyId: string): StoredApiKey => ({ keyId, secretHash: 'ab'.repeat(32), subject: keyId, scopes: ['a2a:discover'], createdAt: 1 });

  /** A store of `known` keys whose generation the test sets, and whose reads wait when `hold` is set. */
  function fakeStore(known: string[]) {
    const state = { generation: 1, reads: [] as string[], hold: undefined as Promise<void> | undefined };
    const store: ApiKeyLookup = {
      async getApiKey(keyId) {
        state.reads.push(keyId);
        // The record is read now; the answer may arrive later (a slow read).
        const answer = known.includes(keyId) ? record(keyId) : undefined;
        if (state.hold) await state.hold;
        return answer;
      },
    };
    return { state, store };
  }

  it('reads each key once while the generation stays, and all of them again once it moves', async () => {
    const { state, store } = fakeStore(['a', 'b']);
    const cache = new ApiKeyRecordCache(store, () => state.generation);
    for (const id of ['a', 'b', 'a', 'b']) expect((await cache.getApiKey(id))?.keyId).toBe(id);
    expect(state.reads).toEqual(['a', 'b']);
    state.generation = 2;
    for (const id of ['a', 'b', 'a']) await cache.getApiKey(id);
    expect(state.reads).toEqual(['a', 'b', 'a', 'b']);
  });

  it('does not keep a record read under a generation that another call has since seen pass', async () => {
    const { state, store } = fakeStore(['a', 'b']);
    const cache = new ApiKeyRecordCache(store, () => state.generation);
    let release!: () => void;
    state.hold = new Promise((r) => (release = r));
    const slow = cache.getApiKey('a'); // read under generation 1
    state.hold = undefined;
    state.generation = 2;
    await cache.getApiKey('b'); // sees generation 2
    release();
    await slow;
    await cache.getApiKey('a');
    expect(state.reads).toEqual(['a', 'b', 'a']);
  });

  it('reads the generation once per turn for every key, again in each new turn, and on every call outside a turn', async () => {
    const { state, store } = fakeStore(['a', 'b']);
    let generationReads = 0;
    const turn = { now: undefined as number | undefined };
    const generation = () => {
      generationReads++;
      return state.generation;
    };
    const cache = new ApiKeyRecordCache(store, generation, undefined, () => turn.now);
    for (const id of ['a', 'b', 'a']) await cache.getApiKey(id);
    expect(generationReads).toBe(3);
    turn.now = 7;
    for (const id of ['a', 'b', 'a']) await cache.getApiKey(id);
    expect(generationReads).toBe(4);
    // a write lands during turn 7: its calls keep the turn's read; turn 8 reads it
    state.generation = 2;
    await cache.getApiKey('a');
    expect(state.reads).toEqual(['a', 'b']);
    turn.now = 8;
    await cache.getApiKey('a');
    await cache.getApiKey('b');
    expect(generationReads).toBe(5);
    expect(state.reads).toEqual(['a', 'b', 'a', 'b']);
    turn.now = undefined;
    await cache.getApiKey('a');
    await cache.getApiKey('a');
    expect(generationReads).toBe(7);
  });

  it('keeps no misses, and at most its size of records, the oldest going first', async () => {
    const { state, store } = fakeStore(['a', 'b', 'c']);
    const cache = new ApiKeyRecordCache(store, () => state.generation, 2);
    expect(await cache.getApiKey('nope')).toBeUndefined();
    expect(await cache.getApiKey('nope')).toBeUndefined();
    for (const id of ['a', 'b', 'c', 'c', 'b', 'a']) await cache.getApiKey(id);
    expect(state.reads).toEqual(['nope', 'nope', 'a', 'b', 'c', 'a']);
  });

  it('hands out kept records frozen, so no caller can change what the next one gets', async () => {
    const { state, store } = fakeStore(['a']);
    const cache = new ApiKeyRecordCache(store, () => state.generation);
    const first = (await cache.getApiKey('a'))!;
    expect(() => (first.scopes as string[]).push('a2a:admin')).toThrow();
    expect(() => Object.assign(first, { revokedAt: undefined })).toThrow();
    expect((await cache.getApiKey('a'))?.scopes).toEqual(['a2a:discover']);
  });
});

describe('StoredApiKeys', () => {
  it('compares the digest whatever case the stored hex is in, kept record or not, and refuses a wrong secret either way', async () => {
    const made = createApiKey({ subject: 'ci-bot', scopes: ['a2a:publish'] });
    const upper: StoredApiKey = { ...made.record, secretHash: made.record.secretHash.toUpperCase() };
    const forged = `ap_${made.record.keyId}_${randomBytes(32).toString('base64url')}`;
    // read afresh on every call (no generation: PostgreSQL's way), and kept (a generation that stays)
    const fresh = new StoredApiKeys({ getApiKey: async () => ({ ...upper, scopes: [...upper.scopes] }) });
    const kept = new StoredApiKeys({ getApiKey: async () => ({ ...upper, scopes: [...upper.scopes] }), credentialsGeneration: () => 1 });
    for (const keys of [fresh, kept]) {
      for (let i = 0; i < 2; i++) {
        expect(await outcome(keys.authenticate(made.key))).toBe('a2a:publish');
        expect(await outcome(keys.authenticate(forged))).toBe('The API key is not valid');
      }
    }
  });

  /** Keys read through a generation that stays (so every record is kept), on a clock the test moves. */
  function keptKeys(records: StoredApiKey[], clock = { now: Date.now() }) {
    const byId = new Map(records.map((r) => [r.keyId, r]));
    return new StoredApiKeys(
      {
        getApiKey: async (keyId) => {
          const r = byId.get(keyId);
          return r && { ...r, scopes: [...r.scopes] };
        },
        credentialsGeneration: () => 1,
      },
      () => clock.now,
    );
  }

  it('refuses a revoked key on every use while its record is kept, though its secret matched before (ADR 0052; ADR 0073 rejected)', async () => {
    const made = createApiKey({ subject: 'ci-bot', scopes: ['a2a:publish'] });
    const keys = keptKeys([{ ...made.record, revokedAt: Date.now() - 1 }]);
    for (let i = 0; i < 3; i++) expect(await outcome(keys.authenticate(made.key))).toBe('The API key has been revoked');
  });

  it('refuses a kept key whose secret matched before once the clock passes its expiry (ADR 0052; ADR 0073 rejected)', async () => {
    const clock = { now: Date.now() };
    const made = createApiKey({ subject: 'ci-bot', scopes: ['a2a:publish'], now: clock.now, expiresAt: clock.now + 1000 });
    const keys = keptKeys([made.record], clock);
    expect(await outcome(keys.authenticate(made.key))).toBe('a2a:publish');
    expect(await outcome(keys.authenticate(made.key))).toBe('a2a:publish');
    clock.now += 1000;
    expect(await outcome(keys.authenticate(made.key))).toBe('The API key has expired');
    expect(await outcome(keys.authenticate(made.key))).toBe('The API key has expired');
  });

  it('refuses, once the right key was used, every key one character away from it in its secret (ADR 0052; ADR 0073 rejected)', async () => {
    const made = createApiKey({ subject: 'ci-bot', scopes: ['a2a:publish'] });
    const keys = keptKeys([made.record]);
    expect(await outcome(keys.authenticate(made.key))).toBe('a2a:publish');
    const secretAt = 'ap_'.length + 16 + 1;
    for (let i = secretAt; i < made.key.length; i++) {
      const other = made.key[i] === 'A' ? 'B' : 'A';
      const near = made.key.slice(0, i) + other + made.key.slice(i + 1);
      expect(await outcome(keys.authenticate(near)), `changed at ${i}`).toBe('The API key is not valid');
    }
    expect(await outcome(keys.authenticate(made.key))).toBe('a2a:publish');
  });

  it("keeps a matched secret to its own key: another owner's secret under its id is refused, each key stays its owner's (ADR 0052; ADR 0073 rejected)", async () => {
    const alice = createApiKey({ subject: 'alice', scopes: ['a2a:publish'], owner: 'alice' });
    const bob = createApiKey({ subject: 'bob', scopes: ['a2a:discover'], owner: 'bob' });
    const standing = (scopes: string[]) => ({ ownerNow: { createdAt: 0, scopes } });
    const keys = keptKeys([
      { ...alice.record, standing: standing(['a2a:publish']) },
      { ...bob.record, standing: standing(['a2a:discover']) },
    ]);
    const secretOf = (key: string) => key.slice('ap_'.length + 16 + 1);
    const subject = (key: string) =>
      keys.authenticate(key).then(
        (p) => `${p.subject} ${p.scopes.join(' ')}`,
        (e: Error) => e.message,
      );
    for (let i = 0; i < 2; i++) {
      expect(await subject(alice.key)).toBe('alice a2a:publish');
      expect(await subject(bob.key)).toBe('bob a2a:discover');
    }
    expect(await subject(`ap_${alice.record.keyId}_${secretOf(bob.key)}`)).toBe('The API key is not valid');
    expect(await subject(`ap_${bob.record.keyId}_${secretOf(alice.key)}`)).toBe('The API key is not valid');
    // a refused secret leaves the kept record as it was: the right key still passes, the wrong one never does
    expect(await subject(alice.key)).toBe('alice a2a:publish');
    for (let i = 0; i < 2; i++) expect(await subject(`ap_${alice.record.keyId}_${secretOf(bob.key)}`)).toBe('The API key is not valid');
    expect(await subject(alice.key)).toBe('alice a2a:publish');
  });

  it('hands a kept record the same principal while it is kept, and a new one once the record is read again', async () => {
    const made = createApiKey({ subject: 'ci-bot', scopes: ['a2a:publish', 'a2a:discover'] });
    const state = { generation: 1, scopes: ['a2a:publish', 'a2a:discover'] };
    const keys = new StoredApiKeys({ getApiKey: async () => ({ ...made.record, scopes: [...state.scopes] }), credentialsGeneration: () => state.generation });
    const first = await keys.authenticate(made.key);
    expect(await keys.authenticate(made.key)).toBe(first);
    state.scopes = ['a2a:discover'];
    state.generation = 2;
    expect((await keys.authenticate(made.key)).scopes).toEqual(['a2a:discover']);
  });
});
