/**
 * `agentport usage`: a running server's usage (GET /api/v1/usage) as a table with a sparkline of
 * calls per row, or exported as JSON, CSV or NDJSON. Flags are checked with the server's own
 * parsers before anything is sent; relative times are resolved here once, so the table and its
 * sparklines cover exactly the same window.
 */
import { Option, type Command } from 'commander';
import { A2AError } from '../../protocol/a2a/errors.js';
import type { UsageAnswer } from '../../bindings/management/usage-export.js';
import { DEFAULT_SINCE, MAX_LIMIT, parseBucket, parseDimensions, parseInstant } from '../../bindings/management/usage-params.js';
import { USAGE_DIMENSIONS, type UsageTimeBucket } from '../../store/usage-record.js';
import { checkUrl, UsageError } from '../a2a/connection.js';
import { EXIT } from '../a2a/exit-codes.js';
import type { CliIO } from '../io.js';
import { bucketStarts, sparkBucket } from '../usage/time-buckets.js';
import { fetchUsage, UsageApiError } from '../usage/usage-api.js';
import { seriesOf, usageTable } from '../usage/usage-table.js';
import { failed } from './send.js';

const USAGE_HELP = `
Dimensions: ${USAGE_DIMENSIONS.join(', ')}.
--since and --until take a duration back from now (7d, 12h, 30m, 2w) or an ISO 8601 date-time (UTC).
In the table, --bucket is the sparkline's bucket (default: hour up to 2 days, day up to 92, else
month); with --format json, csv or ndjson it adds a row per group and bucket.

Credentials: --api-key ($AGENTPORT_API_KEY) or --token ($AGENTPORT_TOKEN): usage:read shows your
own usage, admin everyone's. The server: --url ($AGENTPORT_URL, default http://127.0.0.1:8080).

Examples:
  $ agentport usage --by agent,tool --since 7d
  $ agentport usage --by subject --filter agent=table-expert --since 30d
  $ agentport usage --by agent --bucket day --format csv > usage.csv
  $ agentport usage --by outcome --filter outcome=TASK_STATE_FAILED,INTERNAL_ERROR --since 2026-01-01

Exit codes: 0 printed, 2 usage (a bad flag, or the server refused a parameter), 4 the server cannot
be reached, 5 the server answered with an error, 6 not authenticated or not allowed.
`;

interface UsageFlags {
  url?: string;
  apiKey?: string;
  key?: string;
  token?: string;
  by: string;
  since: string;
  until?: string;
  bucket?: string;
  filter: string[];
  format: 'table' | 'json' | 'csv' | 'ndjson';
  json?: boolean;
  limit?: string;
  timeout?: string;
}

interface Checked {
  base: string;
  params: URLSearchParams;
  from: number;
  to: number;
  bucket?: UsageTimeBucket;
  timeoutMs: number;
}

/** A parser's InvalidParams becomes a usage error naming the flag. */
function flag<T>(name: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof A2AError && e.fieldViolations?.length) throw new UsageError(`${name}: ${e.fieldViolations[0]!.description}`);
    throw e;
  }
}

function check(f: UsageFlags, io: CliIO, now: number): Checked {
  const given = f.url ?? io.env.AGENTPORT_URL ?? 'http://127.0.0.1:8080';
  checkUrl(given);
  const base = new URL(given).origin;
  const by = flag('--by', () => parseDimensions('by', f.by));
  const bucket = f.bucket === undefined ? undefined : flag('--bucket', () => parseBucket('bucket', f.bucket!));
  const from = parseInstant(f.since, now);
  if (from === undefined) throw new UsageError(`--since ${JSON.stringify(f.since)} is neither a duration (7d, 12h, 30m, 2w) nor an ISO 8601 date-time`);
  const to = f.until === undefined ? now : parseInstant(f.until, now);
  if (to === undefined) throw new UsageError(`--until ${JSON.stringify(f.until)} is neither a duration (7d, 12h, 30m, 2w) nor an ISO 8601 date-time`);
  if (from >= to) throw new UsageError(`--since (${new Date(from).toISOString()}) must be before --until (${new Date(to).toISOString()})`);
  const params = new URLSearchParams({ since: new Date(from).toISOString(), until: new Date(to).toISOString() });
  if (by.length) params.set('by', by.join(','));
  for (const item of f.filter) {
    const eq = item.indexOf('=');
    const dim = eq < 0 ? item : item.slice(0, eq);
    if (eq <= 0 || !(USAGE_DIMENSIONS as readonly string[]).includes(dim)) {
      throw new UsageError(`--filter ${JSON.stringify(item)} is not <dimension>=<value>; dimensions: ${USAGE_DIMENSIONS.join(', ')}`);
    }
    params.append(dim, item.slice(eq + 1));
  }
  if (f.limit !== undefined) {
    const n = Number(f.limit);
    if (!/^\d+$/.test(f.limit) || n < 1 || n > MAX_LIMIT) throw new UsageError(`--limit must be an integer from 1 to ${MAX_LIMIT}, not ${JSON.stringify(f.limit)}`);
    params.set('limit', f.limit);
  }
  let timeoutMs = 30_000;
  if (f.timeout !== undefined) {
    timeoutMs = Number(f.timeout);
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new UsageError(`--timeout ${JSON.stringify(f.timeout)} is not a positive number of milliseconds`);
  }
  return { base, params, from, to, ...(bucket ? { bucket } : {}), timeoutMs };
}

async function run(io: CliIO, given: UsageFlags): Promise<number> {
  const f: UsageFlags = given.json ? { ...given, format: 'json' } : given;
  const c = check(f, io, Date.now());
  const creds = {
    ...((f.token ?? io.env.AGENTPORT_TOKEN) ? { token: f.token ?? io.env.AGENTPORT_TOKEN } : {}),
    ...((f.apiKey ?? f.key ?? io.env.AGENTPORT_API_KEY) ? { apiKey: f.apiKey ?? f.key ?? io.env.AGENTPORT_API_KEY } : {}),
  };
  if (f.format !== 'table') {
    const params = new URLSearchParams(c.params);
    params.set('format', f.format);
    if (c.bucket) params.set('bucket', c.bucket);
    const { body } = await fetchUsage(c.base, params, creds, c.timeoutMs);
    io.stdout(body.endsWith('\n') || body === '' ? body : `${body}\n`);
    return EXIT.ok;
  }
  const bucket = c.bucket ?? sparkBucket(c.from, c.to);
  const bucketed = new URLSearchParams(c.params);
  bucketed.set('bucket', bucket);
  // Every (group, bucket) pair is wanted for the sparklines, not only the largest.
  bucketed.set('limit', String(MAX_LIMIT));
  const [totals, perBucket] = await Promise.all([fetchUsage(c.base, c.params, creds, c.timeoutMs), fetchUsage(c.base, bucketed, creds, c.timeoutMs)]);
  const answer = JSON.parse(totals.body) as UsageAnswer;
  const series = seriesOf(answer.groupBy, (JSON.parse(perBucket.body) as UsageAnswer).groups, bucket, bucketStarts(c.from, c.to, bucket));
  io.stdout(usageTable(answer, series, io.isTTY === true && !io.env.NO_COLOR));
  return EXIT.ok;
}

export function registerUsage(program: Command, io: CliIO): void {
  program
    .command('usage')
    .description("a server's usage: calls, errors, latency, tokens and cost per agent, tool, subject… with a sparkline per row")
    .option('--by <dimensions>', 'group by these, comma-separated (e.g. agent,tool)', 'agent')
    .option('--since <when>', 'start: a duration back from now or an ISO date-time', DEFAULT_SINCE)
    .option('--until <when>', 'end: a duration back from now or an ISO date-time (default now)')
    .option('--bucket <bucket>', 'hour, day or month (see below)')
    .option('--filter <dimension=value>', 'only records whose dimension has this value; values comma-separated (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'json', 'csv', 'ndjson']).default('table'))
    .option('--json', 'the same as --format json')
    .option('--limit <n>', `at most n groups, largest first (1-${MAX_LIMIT}; default 1000)`)
    .option('--url <url>', "the server's address (default $AGENTPORT_URL, else http://127.0.0.1:8080)")
    .option('--api-key <key>', 'send X-API-Key: <key> (default $AGENTPORT_API_KEY)')
    .option('--key <key>', 'the same as --api-key')
    .option('--token <token>', 'send Authorization: Bearer <token> (default $AGENTPORT_TOKEN)')
    .option('--timeout <ms>', 'per-request timeout in milliseconds (default 30000)')
    .addHelpText('after', USAGE_HELP)
    .action(async (f: UsageFlags) => {
      let code: number;
      try {
        code = await run(io, f);
      } catch (err) {
        if (err instanceof UsageApiError) {
          io.stderr(`agentport: ${err.message}\n`);
          code = err.code;
        } else code = failed(io, err, 'usage');
      }
      if (code !== 0) io.exit(code);
    });
}
