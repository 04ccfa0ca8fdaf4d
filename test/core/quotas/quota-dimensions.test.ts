/**
 * A call's dimensions and the buckets of a quota (src/core/quotas/quota.ts): which quotas apply,
 * the dimensions and key naming a bucket, and the UTC month a monthly budget counts in. Expected
 * months are written out by hand from the calendar.
 */
import { describe, expect, it } from 'vitest';
import { quotasSchema } from '../../../src/config/usage-schema.js';
import type { CallContext } from '../../../src/core/a2a-handler.js';
import { applies, bucketDimensions, bucketKey, callDimensions, monthBounds, principalDimensions } from '../../../src/core/quotas/quota.js';

const quota = (o: object) => quotasSchema.parse([{ id: 'q', concurrentTasks: 1, ...o }])[0]!;

describe('call dimensions', () => {
  it('a principal with every credential detail has every dimension', () => {
    expect(principalDimensions({ subject: 'alice', authenticated: true, scopes: [], clientId: 'cli', keyId: 'k1', usecase: 'billing' })).toStrictEqual({
      subject: 'alice',
      client: 'cli',
      key: 'k1',
      usecase: 'billing',
    });
  });

  it('a bare principal has only its subject; a call adds its agent and its skill when there is one', () => {
    const principal = { subject: 'bob', authenticated: true, scopes: [] };
    expect(principalDimensions(principal)).toStrictEqual({ subject: 'bob' });
    const ctx = { agentId: 'echo', principal, requestedExtensions: [] } as unknown as CallContext;
    expect(callDimensions(ctx, undefined)).toStrictEqual({ subject: 'bob', agent: 'echo' });
    expect(callDimensions(ctx, 'summarize')).toStrictEqual({ subject: 'bob', agent: 'echo', skill: 'summarize' });
  });
});

describe('which quotas apply', () => {
  const dims = { subject: 'alice', agent: 'echo', key: 'k1' };

  it('applies when every match dimension has its value and every per dimension is known', () => {
    expect(applies(quota({ match: { agent: 'echo' }, per: ['key'] }), dims)).toBe(true);
    expect(applies(quota({ match: { agent: 'echo', subject: 'alice' } }), dims)).toBe(true);
    expect(applies(quota({}), dims)).toBe(true);
  });

  it('does not apply when one match value differs or is missing', () => {
    expect(applies(quota({ match: { agent: 'other' } }), dims)).toBe(false);
    expect(applies(quota({ match: { agent: 'echo', subject: 'bob' } }), dims)).toBe(false);
    expect(applies(quota({ match: { usecase: 'billing' } }), dims)).toBe(false);
  });

  it('does not apply when a per dimension is unknown for the call', () => {
    expect(applies(quota({ per: ['key', 'client'] }), dims)).toBe(false);
    expect(applies(quota({ per: ['client'] }), dims)).toBe(false);
  });
});

describe('buckets', () => {
  it('a bucket is named by the match values and the call’s per values, nothing else', () => {
    const q = quota({ match: { agent: 'echo' }, per: ['subject', 'key'] });
    expect(bucketDimensions(q, { subject: 'alice', agent: 'echo', key: 'k1', skill: 's', usecase: 'u' })).toStrictEqual({
      agent: 'echo',
      subject: 'alice',
      key: 'k1',
    });
    expect(bucketDimensions(quota({}), { subject: 'alice' })).toStrictEqual({});
  });

  it('a bucket key joins the per values, encoded, after the quota id', () => {
    const q = quota({ id: 'per-user', per: ['subject', 'key'] });
    expect(bucketKey(q, { subject: 'a/b c', key: 'k1' })).toBe('per-user/a%2Fb%20c/k1');
    expect(bucketKey(q, { subject: 'a', key: 'b/k1' })).not.toBe(bucketKey(q, { subject: 'a/b', key: 'k1' }));
    expect(bucketKey(quota({ id: 'all' }), { subject: 'anyone' })).toBe('all/*');
  });
});

describe('monthBounds', () => {
  it('gives the UTC first instants of the month and of the next one', () => {
    expect(monthBounds(Date.parse('2026-11-29T01:00:00Z'))).toEqual({ start: Date.parse('2026-11-01T00:00:00Z'), next: Date.parse('2026-12-01T00:00:00Z') });
    expect(monthBounds(Date.parse('2026-12-31T23:59:59.999Z'))).toEqual({ start: Date.parse('2026-12-01T00:00:00Z'), next: Date.parse('2027-01-01T00:00:00Z') });
    expect(monthBounds(Date.parse('2026-03-01T00:00:00Z'))).toEqual({ start: Date.parse('2026-03-01T00:00:00Z'), next: Date.parse('2026-04-01T00:00:00Z') });
  });
});
