/**
 * `GET /api/v1/usage` on a real server (loopback HTTP, auth required), reading a known set of
 * records through the usage store seam (test/support/usage-fixture.ts): grouping, time buckets,
 * filters, the three formats (CSV parsed back by DuckDB's reader), who sees what (admin: all;
 * usage:read: its own subject, another subject named → 403), the quotas of the caller, and a 400
 * naming the valid values for every malformed parameter. Every answer is checked against
 * /openapi.json.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../../src/core/authz/principal.js';
import type { QuotaStanding } from '../../../src/bindings/management/usage-export.js';
import { challengeParams } from '../../core/authz/support.js';
import { readCsv } from '../../support/csv-reader.js';
import type { MemoryUsageStore } from '../../support/memory-usage-store.js';
import { OpenApiConformance } from '../../support/openapi-conformance.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { DAY, JAN_1, usageFixture, WEEK } from '../../support/usage-fixture.js';

const ADMIN = 'usage-test-admin-0123456789';
const ALICE = 'usage-test-alice-0123456789';
const DISCOVER_ONLY = 'usage-test-discover-0123456789';

let s: TestServer;
let store: MemoryUsageStore;
const api = new OpenApiConformance();
const quotaCalls: Principal[] = [];
let quotasDown = false;
const RESET = '2026-02-01T00:00:00.000Z';

beforeAll(async () => {
  store = usageFixture();
  s = await startTestServer(
    {
      auth: {
        mode: 'required',
        apiKeys: [
          { key: ADMIN, subject: 'root', scopes: ['admin'] },
          { key: ALICE, subject: 'alice', scopes: ['usage:read'] },
          { key: DISCOVER_ONLY, subject: 'alice', scopes: ['a2a:discover'] },
        ],
      },
    },
    {
      services: {
        usage: store,
        quotaRemaining: async (p): Promise<QuotaStanding[]> => {
          quotaCalls.push(p);
          if (quotasDown) throw new Error('redis is down');
          return [
            { quotaId: `calls-${p.subject}`, kind: 'requests', limit: 100, remaining: 58, resetAt: RESET },
            { quotaId: 'tasks', kind: 'concurrentTasks', limit: 4, remaining: 4 },
          ];
        },
      },
    },
  );
}, 30_000);
afterAll(() => s?.stop());

async function get(query: string, key?: string, headers: Record<string, string> = {}) {
  const p = `/api/v1/usage?${query}`;
  const res = await fetch(`${s.http}${p}`, { headers: { ...headers, ...(key ? { 'x-api-key': key } : {}) } });
  const contentType = res.headers.get('content-type') ?? '';
  const challenge = res.headers.get('www-authenticate');
  const body = (await api.check('GET', p, res)) as any;
  return { status: res.status, body, contentType, challenge };
}

const week = new URLSearchParams(WEEK).toString();

describe('GET /api/v1/usage: grouping and metrics (admin)', () => {
  it('groups by agent with calls, errors, error rate, latency percentiles, duration, tokens, cost and bytes', async () => {
    const r = await get(`by=agent&${week}`, ADMIN);
    expect(r.status).toBe(200);
    expect(r.contentType).toMatch(/^application\/json/);
    expect(r.body).toMatchObject({ from: '2026-01-01T00:00:00.000Z', to: '2026-01-08T00:00:00.000Z', groupBy: ['agent'], limit: 1000 });
    expect(r.body.subject).toBeUndefined();
    const byAgent = Object.fromEntries(r.body.groups.map((g: any) => [g.key.agent, g]));
    expect(Object.keys(byAgent).sort()).toEqual(['echo', 'null', 'table-expert'].sort());
    expect(byAgent.echo).toMatchObject({ calls: 29, errors: 0, errorRate: 0, tokens: 0, durationMs: null });
    expect(byAgent['table-expert']).toEqual({
      key: { agent: 'table-expert' },
      calls: 4,
      errors: 1,
      errorRate: 0.25,
      latencyMs: { p50: 200, p95: 400, p99: 400 },
      durationMs: { p50: 2000, p95: 4000, p99: 4000, avg: 2500 },
      promptTokens: 400,
      completionTokens: 200,
      cachedTokens: 0 + 10 + 20 + 30,
      tokens: 600,
      cost: 2,
      bytesIn: 800,
      bytesOut: 4000,
    });
    expect(byAgent.null).toMatchObject({ key: { agent: null }, calls: 1, errors: 1, errorRate: 1, latencyMs: null });
  });

  it('passes the parsed query to the store: dimensions in order, time range, bucket, limit', async () => {
    await get(`by=agent,tool&bucket=day&limit=5&${week}`, ADMIN);
    expect(store.queries.at(-1)).toEqual({ groupBy: ['agent', 'tool'], bucket: 'day', filters: {}, from: JAN_1, to: JAN_1 + 7 * DAY, limit: 5 });
  });

  it('buckets by day: one group per agent and day, with the UTC start of the day', async () => {
    const r = await get(`by=agent&bucket=day&agent=echo&${week}`, ADMIN);
    expect(r.body.bucket).toBe('day');
    const series = r.body.groups.map((g: any) => [g.bucketStart, g.calls]).sort();
    expect(series).toEqual([1, 2, 3, 4, 5, 6, 8].map((n, i) => [new Date(JAN_1 + i * DAY).toISOString(), n]));
  });

  it('filters: repeated and comma-listed values match any; an empty item matches records without a value', async () => {
    const calls = async (q: string) => (await get(`${q}&${week}`, ADMIN)).body.groups.reduce((a: number, g: any) => a + g.calls, 0);
    expect(await calls('agent=echo')).toBe(29);
    expect(await calls('agent=echo&agent=table-expert')).toBe(33);
    expect(await calls('agent=echo,table-expert')).toBe(33);
    expect(await calls('agent=')).toBe(1);
    expect(await calls('subject=bob&outcome=TASK_STATE_FAILED')).toBe(1);
    expect(store.queries.at(-1)!.filters).toEqual({ subject: ['bob'], outcome: ['TASK_STATE_FAILED'] });
  });

  it('counts back from now for relative times (since=7d) and defaults to the last 7 days', async () => {
    const before = Date.now();
    await get('', ADMIN);
    const q = store.queries.at(-1)!;
    const after = Date.now();
    expect(q.to).toBeGreaterThanOrEqual(before);
    expect(q.to).toBeLessThanOrEqual(after);
    expect(q.to - q.from).toBe(7 * DAY);
    await get('since=12h', ADMIN);
    const q2 = store.queries.at(-1)!;
    expect(q2.to - q2.from).toBe(12 * 3_600_000);
  });
});

describe('GET /api/v1/usage: formats', () => {
  it('CSV (format=csv): a header row, RFC 4180 quoting, formula-looking text defused; DuckDB reads it back', async () => {
    const r = await get(`by=agent,tool&format=csv&${week}`, ADMIN);
    expect(r.status).toBe(200);
    expect(r.contentType).toMatch(/^text\/csv/);
    const text = r.body as string;
    expect(text.split('\r\n')[0]).toBe(
      'agent,tool,calls,errors,error_rate,latency_p50_ms,latency_p95_ms,latency_p99_ms,duration_p50_ms,duration_p95_ms,duration_p99_ms,duration_avg_ms,prompt_tokens,completion_tokens,cached_tokens,tokens,cost,bytes_in,bytes_out',
    );
    expect(text).toContain('table-expert,"query, ""fast""",1,');
    expect(text.endsWith('\r\n')).toBe(true);

    const rows = await readCsv(text);
    expect(rows).toHaveLength(4);
    const byTool = Object.fromEntries(rows.map((row) => [row.tool ?? '(none)', row]));
    expect(byTool['query, "fast"']).toMatchObject({ agent: 'table-expert', calls: '1', prompt_tokens: '100', cached_tokens: '0', tokens: '150', cost: '0.5' });
    expect(byTool.search).toMatchObject({ calls: '3', errors: '1', latency_p50_ms: '300' });
    expect(byTool[`'=HYPERLINK("x")`]).toMatchObject({ agent: null, errors: '1' });
    expect(byTool['(none)']).toMatchObject({ agent: 'echo', calls: '29', latency_p99_ms: '80', duration_p50_ms: null });
  });

  it('CSV by Accept: text/csv; with a bucket column', async () => {
    const r = await get(`by=agent&bucket=month&${week}`, ADMIN, { accept: 'text/csv' });
    expect(r.contentType).toMatch(/^text\/csv/);
    expect((r.body as string).split('\r\n')[0]).toMatch(/^agent,bucket_start,calls,/);
    expect(r.body).toContain('echo,2026-01-01T00:00:00.000Z,29,');
  });

  it('NDJSON (Accept: application/x-ndjson, or format=ndjson): one group per line', async () => {
    for (const [q, h] of [
      [`by=subject&${week}`, { accept: 'application/x-ndjson' }],
      [`by=subject&format=ndjson&${week}`, { accept: 'text/csv' }],
    ] as const) {
      const r = await get(q, ADMIN, h);
      expect(r.contentType).toMatch(/^application\/x-ndjson/);
      const lines = (r.body as string).split('\n');
      expect(lines.at(-1)).toBe('');
      const groups = lines.slice(0, -1).map((l) => JSON.parse(l));
      expect(groups.map((g) => [g.key.subject, g.calls]).sort()).toEqual([
        ['alice', 29],
        ['bob', 4],
        ['mallory', 1],
      ]);
    }
  });

  it('JSON by default, and for Accept headers that name none of the formats', async () => {
    for (const accept of ['text/html, */*;q=0.8', 'image/png', 'text/csv;q=0, application/json']) {
      const r = await get(`by=agent&${week}`, ADMIN, { accept });
      expect(r.contentType).toMatch(/^application\/json/);
    }
  });
});

describe('GET /api/v1/usage: who sees what', () => {
  it('a usage:read caller sees only its own usage, and the answer says so', async () => {
    const r = await get(`by=subject,agent&${week}`, ALICE);
    expect(r.status).toBe(200);
    expect(r.body.subject).toBe('alice');
    expect(r.body.groups).toEqual([expect.objectContaining({ key: { subject: 'alice', agent: 'echo' }, calls: 29 })]);
    expect(store.queries.at(-1)!.filters).toEqual({ subject: ['alice'] });
  });

  it('a usage:read caller may name its own subject; naming another is 403, not an empty answer', async () => {
    expect((await get(`subject=alice&${week}`, ALICE)).status).toBe(200);
    for (const q of ['subject=bob', 'subject=alice,bob', 'subject=']) {
      const r = await get(`${q}&${week}`, ALICE);
      expect(r.status).toBe(403);
      expect(r.body.error.status).toBe('PERMISSION_DENIED');
      expect(r.body.error.message).toContain('subject=alice');
      expect(challengeParams(r.challenge)).toMatchObject({ error: 'insufficient_scope', scope: 'admin' });
    }
    // An administrator may name anyone.
    expect((await get(`subject=bob&${week}`, ADMIN)).status).toBe(200);
  });

  it('without usage:read or admin: 403 naming usage:read; without a credential: 401 with the challenge', async () => {
    const denied = await get(week, DISCOVER_ONLY);
    expect(denied.status).toBe(403);
    expect(challengeParams(denied.challenge)).toMatchObject({ error: 'insufficient_scope', scope: 'usage:read' });
    const anonymous = await get(week);
    expect(anonymous.status).toBe(401);
    expect(challengeParams(anonymous.challenge)).toMatchObject({ scope: 'usage:read' });
    expect(challengeParams(anonymous.challenge).resource_metadata).toMatch(/\/\.well-known\/oauth-protected-resource\/api\/v1$/);
  });
});

describe('GET /api/v1/usage: quotas', () => {
  it("reports what remains of each of the caller's quotas in the JSON answer", async () => {
    const r = await get(week, ALICE);
    expect(r.body.quotas).toEqual([
      { quotaId: 'calls-alice', kind: 'requests', limit: 100, remaining: 58, resetAt: '2026-02-01T00:00:00.000Z' },
      { quotaId: 'tasks', kind: 'concurrentTasks', limit: 4, remaining: 4, resetAt: null },
    ]);
    expect(quotaCalls.at(-1)).toMatchObject({ subject: 'alice', scopes: ['usage:read'] });
  });

  it('leaves them out, and still answers, when the quota standings cannot be read', async () => {
    quotasDown = true;
    try {
      const r = await get(`by=agent&${week}`, ALICE);
      expect(r.status).toBe(200);
      expect(r.body.quotas).toBeUndefined();
      expect(r.body.groups).toHaveLength(1);
    } finally {
      quotasDown = false;
    }
  });

  it('leaves them out of CSV and NDJSON exports', async () => {
    const n = quotaCalls.length;
    expect((await get(`format=csv&${week}`, ALICE)).body).not.toContain('quota');
    expect((await get(`format=ndjson&${week}`, ALICE)).body).not.toContain('quota');
    expect(quotaCalls.length).toBe(n);
  });
});

describe('GET /api/v1/usage: every malformed parameter is a 400 that names it and the valid values', () => {
  it.each([
    ['by=agent,colour', 'by', /unknown dimension 'colour'; valid: agent, skill, tool, subject, client, key, usecase, face, operation, outcome, kind/],
    ['by=agent,agent', 'by', /named twice/],
    ['bucket=week', 'bucket', /unknown bucket 'week'; valid: hour, day, month/],
    ['format=xml', 'format', /unknown format 'xml'; valid: json, csv, ndjson/],
    ['since=yesterday', 'since', /neither a duration \(7d, 12h, 30m, 2w\) nor an ISO 8601 date-time/],
    ['since=2026-13-45', 'since', /neither a duration/],
    ['until=soon', 'until', /neither a duration/],
    ['since=2026-01-08&until=2026-01-01', 'since', /must be before until/],
    ['limit=0', 'limit', /integer from 1 to 10000/],
    ['limit=1.5', 'limit', /integer from 1 to 10000/],
    ['limit=10001', 'limit', /integer from 1 to 10000/],
    ['agnet=echo', 'agnet', /unknown parameter; valid: by, bucket, since, until, limit, format, agent/],
    ['bucket=day&bucket=hour', 'bucket', /more than once/],
  ])('%s', async (query, field, message) => {
    const r = await get(query, ADMIN);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(r.body.error.message).toMatch(message);
    const violations = r.body.error.details.find((d: any) => d['@type'].endsWith('BadRequest')).fieldViolations;
    expect(violations).toEqual([{ field, description: expect.stringMatching(message) }]);
  });
});
