/**
 * The audit record's hash (src/store/audit-chain.ts) against its documented serialization,
 * recomputed here with node:crypto directly: never with the module's own hash function, which
 * could not disagree with itself. Pins that every column is in the hash (a column left out would
 * let that column be edited unseen) and that the chain links each record to the one before.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AuditChainWalk, type AuditChainRow, auditHash, canonicalJson, chainRows, GENESIS_HASH, toAuditRecord } from '../../src/store/audit-chain.js';

/** The formula of the module's doc comment, written out again. */
function documentedHash(r: AuditChainRow): string {
  const text = `agentport-audit-v1\n${JSON.stringify([r.seq, r.time, r.replica, r.action, r.outcome, r.actor, r.actor_client, r.target, r.client_address, r.user_agent, r.request_id, r.details, r.prev_hash])}`;
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

const row: AuditChainRow = {
  seq: 7,
  time: 1_700_000_000_123,
  replica: 'r1',
  action: 'apikey.created',
  outcome: 'success',
  actor: 'alice',
  actor_client: 'cli',
  target: 'apikey:k7',
  client_address: '10.0.0.1',
  user_agent: 'ua/1',
  request_id: 'req-7',
  details: '{"a":1}',
  prev_hash: 'a'.repeat(64),
};

/** A different value of the same type for each column. */
const edits: { [K in keyof AuditChainRow]: AuditChainRow[K] } = {
  seq: 8,
  time: 1_700_000_000_124,
  replica: 'r2',
  action: 'apikey.revoked',
  outcome: 'failure',
  actor: 'mallory',
  actor_client: 'other',
  target: 'apikey:k8',
  client_address: '10.0.0.2',
  user_agent: 'ua/2',
  request_id: 'req-8',
  details: '{"a":2}',
  prev_hash: 'b'.repeat(64),
};

describe('audit record hash', () => {
  it('is SHA-256 of the documented text, recomputed with node:crypto', () => {
    expect(auditHash(row)).toBe(documentedHash(row));
    // The same digest computed outside Node (Python's hashlib over the same text), so a change to
    // both the formula and this test's copy of it still shows.
    expect(auditHash(row)).toBe('43aedd432713f338438b3e3d45a818612718dfc483842b719648e35265bc93f0');
  });

  it.each(Object.keys(edits) as Array<keyof AuditChainRow>)('changes when %s changes (the column is hashed)', (column) => {
    const edited = { ...row, [column]: edits[column] };
    expect(documentedHash(edited)).not.toBe(documentedHash(row));
    expect(auditHash(edited)).toBe(documentedHash(edited));
  });

  it.each(['actor_client', 'target', 'client_address', 'user_agent', 'request_id', 'details'] as const)('hashes an absent %s as JSON null, distinct from an empty string', (column) => {
    const absent = { ...row, [column]: null };
    expect(auditHash(absent)).toBe(documentedHash(absent));
    expect(auditHash(absent)).not.toBe(auditHash({ ...row, [column]: '' }));
  });
});

describe('chaining', () => {
  it('numbers after the last record, links prev_hash to it, and stores details with sorted keys', () => {
    const rows = chainRows({ seq: 4, hash: 'c'.repeat(64) }, [
      { time: 1, replica: 'r', action: 'x', outcome: 'success', actor: 'a', details: { b: 2, a: { d: 1, c: 0 } } },
      { time: 2, replica: 'r', action: 'y', outcome: 'denied', actor: 'b', actorClient: 'k', target: 't', clientAddress: 'ip', userAgent: 'u', requestId: 'q' },
    ]);
    expect(rows.map((r) => r.seq)).toEqual([5, 6]);
    expect(rows[0]).toMatchObject({ prev_hash: 'c'.repeat(64), details: '{"a":{"c":0,"d":1},"b":2}', actor_client: null, target: null, client_address: null, user_agent: null, request_id: null });
    expect(rows[1]).toMatchObject({ prev_hash: rows[0]!.hash, actor_client: 'k', target: 't', client_address: 'ip', user_agent: 'u', request_id: 'q', details: null });
    for (const r of rows) {
      const { hash, ...columns } = r;
      expect(hash).toBe(documentedHash(columns));
    }
  });

  it('starts an empty log from the genesis hash of 64 zeros', () => {
    expect(GENESIS_HASH).toBe('0000000000000000000000000000000000000000000000000000000000000000');
    const [first] = chainRows(undefined, [{ time: 1, replica: 'r', action: 'x', outcome: 'success', actor: 'a' }]);
    expect(first).toMatchObject({ seq: 1, prev_hash: GENESIS_HASH });
  });

  it('sorts keys at every level and leaves arrays in order', () => {
    expect(canonicalJson({ z: [3, { y: 1, x: 2 }], a: null })).toBe('{"a":null,"z":[3,{"x":2,"y":1}]}');
  });
});

describe('verifying a walk', () => {
  const chain = () =>
    chainRows(
      undefined,
      [1, 2, 3].map((i) => ({ time: i, replica: 'r', action: 'x', outcome: 'success' as const, actor: `a${i}` })),
    );

  it('accepts an intact chain and reports its end', () => {
    const walk = new AuditChainWalk();
    const rows = chain();
    expect(rows.every((r) => walk.check(r))).toBe(true);
    expect(walk.result()).toEqual({ ok: true, count: 3, lastSeq: 3, lastHash: rows[2]!.hash });
  });

  it('names a gap with the range of missing seqs', () => {
    const walk = new AuditChainWalk();
    const rows = chainRows(
      undefined,
      [1, 2, 3, 4].map((i) => ({ time: i, replica: 'r', action: 'x', outcome: 'success' as const, actor: 'a' })),
    );
    expect(walk.check(rows[0]!)).toBe(true);
    expect(walk.check(rows[3]!)).toBe(false);
    expect(walk.result()).toEqual({ ok: false, count: 1, seq: 2, problem: 'missing-row', detail: 'seq 2..3 missing (next present row is 4)' });
    // once broken, later rows are not checked
    expect(walk.check(rows[1]!)).toBe(false);
  });

  it('names one missing seq without a range, and a seq out of order', () => {
    const rows = chain();
    const gap = new AuditChainWalk();
    gap.check(rows[0]!);
    gap.check(rows[2]!);
    expect(gap.result()).toMatchObject({ problem: 'missing-row', detail: 'seq 2 missing (next present row is 3)' });
    const back = new AuditChainWalk();
    back.check(rows[0]!);
    back.check(rows[0]!);
    expect(back.result()).toMatchObject({ ok: false, seq: 2, problem: 'missing-row', detail: 'seq 1 out of order' });
  });

  it('names a row whose column was edited, and a broken link', () => {
    const rows = chain();
    const edited = new AuditChainWalk();
    edited.check(rows[0]!);
    expect(edited.check({ ...rows[1]!, actor: 'mallory' })).toBe(false);
    expect(edited.result()).toEqual({ ok: false, count: 1, seq: 2, problem: 'hash-mismatch', detail: 'the stored hash does not match the row (the row was edited)' });
    const relinked = new AuditChainWalk();
    relinked.check(rows[0]!);
    expect(relinked.check({ ...rows[1]!, prev_hash: GENESIS_HASH })).toBe(false);
    expect(relinked.result()).toEqual({ ok: false, count: 1, seq: 2, problem: 'prev-hash-mismatch', detail: 'prev_hash does not match the hash of seq 1' });
  });
});

describe('a stored row as a record', () => {
  it('names every column present, and leaves out the absent ones', () => {
    expect(toAuditRecord({ ...row, hash: 'h' })).toStrictEqual({
      seq: 7,
      time: 1_700_000_000_123,
      replica: 'r1',
      action: 'apikey.created',
      outcome: 'success',
      actor: 'alice',
      actorClient: 'cli',
      target: 'apikey:k7',
      clientAddress: '10.0.0.1',
      userAgent: 'ua/1',
      requestId: 'req-7',
      details: { a: 1 },
      prevHash: 'a'.repeat(64),
      hash: 'h',
    });
    const bare = { ...row, actor_client: null, target: null, client_address: null, user_agent: null, request_id: null, details: null, hash: 'h' };
    expect(toAuditRecord(bare)).toStrictEqual({ seq: 7, time: 1_700_000_000_123, replica: 'r1', action: 'apikey.created', outcome: 'success', actor: 'alice', prevHash: 'a'.repeat(64), hash: 'h' });
  });

  it.each([
    ['corrupt text', '{not json', { raw: '{not json' }],
    ['a JSON array', '[1,2]', { value: [1, 2] }],
    ['JSON null', 'null', { value: null }],
    ['a JSON number', '3', { value: 3 }],
  ])('keeps details that are %s readable', (_what, details, expected) => {
    expect(toAuditRecord({ ...row, details, hash: 'h' }).details).toStrictEqual(expected);
  });
});
