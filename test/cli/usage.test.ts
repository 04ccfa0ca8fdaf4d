/**
 * `agentport usage` against a real server on loopback, reading a known set of usage records
 * through the usage store seam (test/support/usage-fixture.ts): the table's rows and numbers, the
 * sparkline of a known series (daily and hourly), colour only on a terminal, the exports (CSV read
 * back by DuckDB, NDJSON, JSON), own-usage-only for usage:read, and the error messages and exit
 * codes of bad flags, refused credentials and an unreachable server.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import { readCsv } from '../support/csv-reader.js';
import { freePort } from '../support/private-services.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { usageFixture, WEEK } from '../support/usage-fixture.js';
import { fakeIO } from './fake-io.js';

const ADMIN = 'usage-cli-admin-0123456789';
const ALICE = 'usage-cli-alice-0123456789';
const PUBLISH = 'usage-cli-publish-0123456789';

let s: TestServer;
const cwd = mkdtempSync(path.join(tmpdir(), 'agentport-cli-usage-'));

beforeAll(async () => {
  s = await startTestServer(
    {
      auth: {
        mode: 'required',
        apiKeys: [
          { key: ADMIN, subject: 'root', scopes: ['admin'] },
          { key: ALICE, subject: 'alice', scopes: ['usage:read'] },
          { key: PUBLISH, subject: 'alice', scopes: ['a2a:publish'] },
        ],
      },
    },
    {
      services: {
        usage: usageFixture(),
        quotaRemaining: async (p) => [{ quotaId: `calls-${p.subject}`, kind: 'requests', limit: 100, remaining: 58, resetAt: '2026-02-01T00:00:00.000Z' }],
      },
    },
  );
}, 30_000);
afterAll(async () => s?.stop());

async function cli(args: string[], o: { tty?: boolean; env?: NodeJS.ProcessEnv } = {}) {
  const io = fakeIO(cwd, o.env ?? {});
  if (o.tty) io.isTTY = true;
  await runCli(['node', 'agentport', 'usage', ...args], io);
  return { out: io.out, err: io.err, code: io.exits[0] ?? 0 };
}
const week = ['--since', WEEK.since, '--until', WEEK.until];
const asAdmin = ['--url', () => s.http, '--key', ADMIN] as const;
const admin = () => asAdmin.map((a) => (typeof a === 'function' ? a() : a));

/** The table's data rows by their first cell, each split on runs of two or more spaces (the sparkline kept whole). */
function rows(out: string): Map<string, string[]> {
  const lines = out.split('\n');
  const head = lines.findIndex((l) => /\bCALLS\b/.test(l));
  const end = lines.indexOf('', head);
  const sparkAt = lines[head]!.indexOf('CALLS PER');
  return new Map(
    lines.slice(head + 1, end).map((l) => {
      const cells = l
        .slice(0, sparkAt)
        .trim()
        .split(/\s{2,}/);
      return [cells[0]!, [...cells, l.slice(sparkAt)]];
    }),
  );
}

describe('agentport usage: the table', () => {
  it('one row per agent with calls, errors, error %, p50/p95, tokens, cost and a daily sparkline', async () => {
    const r = await cli([...admin(), ...week, '--by', 'agent']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out.split('\n')[0]).toBe('usage 2026-01-01 00:00 → 2026-01-08 00:00 UTC, by agent');
    expect(r.out.split('\n')[1]).toMatch(/^AGENT\s+CALLS\s+ERRORS\s+ERR%\s+P50 MS\s+P95 MS\s+TOKENS\s+COST\s+CALLS PER DAY$/);
    const t = rows(r.out);
    // The known series of alice on echo: 1, 2, 3, 4, 5, 6, 8 calls on Jan 1…7.
    expect(t.get('echo')).toEqual(['echo', '29', '0', '0.0%', '30', '70', '0', '0', '▁▂▃▄▅▆█']);
    expect(t.get('table-expert')).toEqual(['table-expert', '4', '1', '25.0%', '200', '400', '600', '2', '  █    ']);
    expect(t.get('-')).toEqual(['-', '1', '1', '100.0%', '-', '-', '0', '0', '     █ ']);
    expect([...t.keys()]).toEqual(['echo', 'table-expert', '-']);
  });

  it('an hourly sparkline for a window of two days or less; numbers right-aligned under their headers', async () => {
    const r = await cli([...admin(), '--since', '2026-01-03T00:00:00Z', '--until', '2026-01-03T06:00', '--by', 'agent']);
    const lines = r.out.split('\n');
    expect(lines[1]).toContain('CALLS PER HOUR');
    const t = rows(r.out);
    // bob: hours 0-3 on table-expert; alice: hours 1-3 on echo.
    expect(t.get('table-expert')!.at(-1)).toBe('████  ');
    expect(t.get('echo')!.at(-1)).toBe(' ███  ');
    const callsEnd = lines[1]!.indexOf('CALLS') + 'CALLS'.length;
    for (const l of lines.slice(2, 4)) expect(l[callsEnd - 1]).toMatch(/\d/);
  });

  it('--bucket picks the sparkline bucket; --by with two dimensions makes a column each; the table ends with the quotas', async () => {
    const r = await cli([...admin(), ...week, '--by', 'agent,tool', '--bucket', 'month']);
    expect(r.out).toContain('CALLS PER MONTH');
    const t = rows(r.out);
    expect(t.get('echo')).toEqual(['echo', '-', '29', '0', '0.0%', '30', '70', '0', '0', '█']);
    expect(r.out).toContain('table-expert  query, "fast"');
    expect(r.out).toMatch(/\nQUOTA\s+KIND\s+REMAINING\s+LIMIT\s+RESETS\ncalls-root\s+requests\s+58\s+100\s+2026-02-01 00:00 UTC\n$/);
  });

  it('colour only on a terminal, and not with NO_COLOR', async () => {
    const plain = await cli([...admin(), ...week]);
    expect(plain.out).not.toContain('\x1b[');
    const tty = await cli([...admin(), ...week], { tty: true });
    expect(tty.out).toContain('\x1b[1mAGENT');
    expect(tty.out).toContain('\x1b[36m▁▂▃▄▅▆█\x1b[0m');
    expect(tty.out).toMatch(/\x1b\[31m\s*25\.0%\x1b\[0m/);
    const noColor = await cli([...admin(), ...week], { tty: true, env: { NO_COLOR: '1' } });
    expect(noColor.out).not.toContain('\x1b[');
  });

  it('a usage:read credential sees its own usage only, and the title says whose', async () => {
    const r = await cli(['--url', s.http, ...week, '--by', 'subject,agent'], { env: { AGENTPORT_API_KEY: ALICE } });
    expect(r.code).toBe(0);
    expect(r.out.split('\n')[0]).toContain('(subject alice)');
    expect([...rows(r.out).values()].map((c) => c.slice(0, 3))).toEqual([['alice', 'echo', '29']]);
  });

  it('an empty window says so', async () => {
    const r = await cli([...admin(), '--since', '2020-01-01', '--until', '2020-01-02']);
    expect(r.code).toBe(0);
    expect(r.out).toBe('usage 2020-01-01 00:00 → 2020-01-02 00:00 UTC, by agent\nno usage in this window\n');
  });
});

describe('agentport usage: exports', () => {
  it('--format csv prints the server\u2019s CSV, which reads back', async () => {
    const r = await cli([...admin(), ...week, '--by', 'agent,tool', '--format', 'csv']);
    expect(r.code).toBe(0);
    const back = await readCsv(r.out);
    expect(back.map((row) => [row.agent, row.tool, row.calls])).toEqual(
      expect.arrayContaining([
        ['echo', null, '29'],
        ['table-expert', 'search', '3'],
        ['table-expert', 'query, "fast"', '1'],
        [null, `'=HYPERLINK("x")`, '1'],
      ]),
    );
    expect(back).toHaveLength(4);
  });

  it('--format csv with --bucket adds a row per group and bucket', async () => {
    const r = await cli([...admin(), ...week, '--filter', 'agent=echo', '--bucket', 'day', '--format', 'csv']);
    const back = await readCsv(r.out);
    expect(back.map((row) => [row.bucket_start, row.calls]).sort()).toEqual([1, 2, 3, 4, 5, 6, 8].map((n, i) => [new Date(Date.UTC(2026, 0, 1 + i)).toISOString(), String(n)]));
  });

  it('--format ndjson: one group per line; --json (--format json): the whole answer with the quotas', async () => {
    const nd = await cli([...admin(), ...week, '--by', 'subject', '--format', 'ndjson']);
    expect(
      nd.out
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).key.subject)
        .sort(),
    ).toEqual(['alice', 'bob', 'mallory']);
    const js = await cli([...admin(), ...week, '--filter', 'subject=bob', '--filter', 'outcome=TASK_STATE_FAILED,TASK_STATE_COMPLETED', '--json']);
    const answer = JSON.parse(js.out);
    expect(answer.groups).toEqual([expect.objectContaining({ key: { agent: 'table-expert' }, calls: 4, errors: 1 })]);
    expect(answer.quotas[0]).toMatchObject({ quotaId: 'calls-root', remaining: 58 });
  });
});

describe('agentport usage: errors', () => {
  it.each([
    [['--by', 'colour'], "--by: unknown dimension 'colour'; valid: agent, skill, tool, subject, client, key, usecase, face, operation, outcome, kind"],
    [['--bucket', 'week'], "--bucket: unknown bucket 'week'; valid: hour, day, month"],
    [['--since', 'yesterday'], '--since "yesterday" is neither a duration (7d, 12h, 30m, 2w) nor an ISO 8601 date-time'],
    [['--since', '1d', '--until', '2d'], ') must be before --until ('],
    [['--filter', 'colour=red'], '--filter "colour=red" is not <dimension>=<value>; dimensions: agent, skill'],
    [['--filter', 'agent'], '--filter "agent" is not <dimension>=<value>'],
    [['--limit', '0'], '--limit must be an integer from 1 to 10000'],
    [['--url', 'ftp://example.com'], 'ftp://example.com: only http and https URLs are supported'],
  ])('%j is a usage error (exit 2) before anything is sent', async (args, message) => {
    const r = await cli([...admin(), ...args]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^agentport: /);
    expect(r.err).toContain(message);
    expect(r.err).toContain('(run agentport usage --help for usage)');
    expect(r.out).toBe('');
  });

  it('--format outside the choices is refused by the parser (exit 2)', async () => {
    const r = await cli([...admin(), '--format', 'xml']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--format.*xml.*table, json, csv, ndjson/s);
  });

  it('no credential: exit 6, saying what to pass', async () => {
    const r = await cli(['--url', s.http]);
    expect(r.code).toBe(6);
    expect(r.err).toMatch(/^agentport: .*\(pass --api-key or --token: a credential with usage:read, or admin\)\n$/);
  });

  it('a credential without usage:read, or asking for another subject: exit 6 with the server\u2019s reason', async () => {
    const noScope = await cli(['--url', s.http, '--api-key', PUBLISH]);
    expect(noScope.code).toBe(6);
    expect(noScope.err).toContain('usage:read');
    const other = await cli(['--url', s.http, '--api-key', ALICE, '--filter', 'subject=bob']);
    expect(other.code).toBe(6);
    expect(other.err).toContain('Only an administrator reads the usage of other subjects; this credential reads its own (subject=alice)');
  });

  it('an unreachable server: exit 4', async () => {
    const port = await freePort();
    const r = await cli(['--url', `http://127.0.0.1:${port}`, '--key', ADMIN]);
    expect(r.code).toBe(4);
    expect(r.err).toMatch(new RegExp(`^agentport: cannot reach http://127\\.0\\.0\\.1:${port}: .*is the server running \\(agentport serve\\)\\?\\n$`));
  });

  it('a server without the usage API (an older Agentport, another service): exit 5', async () => {
    // Every Agentport now serves the route: a plain HTTP server answering 404 stands for one that does not.
    const { createServer } = await import('node:http');
    const plain = createServer((_req, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}'));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    try {
      const r = await cli(['--url', `http://127.0.0.1:${(plain.address() as { port: number }).port}`]);
      expect(r.code).toBe(5);
      expect(r.err).toContain('does not serve /api/v1/usage');
    } finally {
      await new Promise((resolve) => plain.close(resolve));
    }
  });
});
