/**
 * `agentport audit verify|list`: the audit log in the database (src/store/audit-store.ts). verify
 * walks the whole hash chain and names the first record that was edited or removed; list prints
 * records, filtered like `GET /api/v1/audit`.
 */
import type { Command } from 'commander';
import type { AuditQuery, AuditRecord, AuditVerification } from '../../store/audit-store.js';
import { EXIT } from '../a2a/exit-codes.js';
import type { CliIO } from '../io.js';
import { storeOptions, withCurrentStore, type StoreOptions } from '../store-access.js';

const AUDIT_HELP = `
The database is the one the config file names (storage), or --storage (sqlite:<path> or a
postgres:// URL). verify exits 0 when the chain is intact, 1 when a record was edited or removed.
verify also asks a running server instead (GET /api/v1/audit/verify, an admin credential) when
given --url, --api-key or --token: no access to its database needed.

Examples:
  $ agentport audit verify --config agentport.yaml
  $ agentport audit verify --url https://agents.example.com --api-key "$ADMIN_KEY"
  $ agentport audit list --action apikey.created --limit 20
  $ agentport audit list --actor alice --json
`;

interface ListOptions extends StoreOptions {
  action?: string;
  actor?: string;
  target?: string;
  outcome?: string;
  since?: string;
  after?: string;
  limit: string;
  json?: boolean;
}

export function registerAudit(program: Command, io: CliIO): void {
  const audit = program.command('audit').description('the tamper-evident audit log: verify, list').addHelpText('after', AUDIT_HELP);
  const common = (cmd: Command): Command => storeOptions(cmd, AUDIT_HELP);

  common(audit.command('verify').description('check the hash chain; name the first record edited or removed'))
    .option('--page-size <n>', 'records read per query', '1000')
    .option('--url <url>', 'ask this running server instead of the database (default with --api-key/--token: $AGENTPORT_URL, else http://127.0.0.1:8080)')
    .option('--api-key <key>', 'an admin key, sent as X-API-Key (default $AGENTPORT_API_KEY); implies the API')
    .option('--token <token>', 'an admin access token, sent as Authorization: Bearer (default $AGENTPORT_TOKEN); implies the API')
    .action(async (o: StoreOptions & { pageSize: string } & ApiOptions) => {
      if (o.url !== undefined || o.apiKey !== undefined || o.token !== undefined) {
        const code = await verifyOverApi(io, o);
        if (code !== 0) io.exit(code);
        return;
      }
      const pageSize = Number(o.pageSize);
      if (!Number.isInteger(pageSize) || pageSize < 1) return usage(io, `--page-size ${JSON.stringify(o.pageSize)} is not a positive whole number`);
      await withCurrentStore(o, io, async (store) => printVerify(io, await store.audit.verify(pageSize)));
    });

  common(audit.command('list').description('print audit records, oldest first'))
    .option('--action <action>', 'e.g. apikey.created, signin.failed, authz.denied')
    .option('--actor <subject>', 'who did it')
    .option('--target <target>', 'e.g. apikey:<id>, user:<name>, client:<id>')
    .option('--outcome <outcome>', 'success, failure or denied')
    .option('--since <when>', 'RFC 3339 date: records at or after it')
    .option('--after <seq>', 'records after this seq (the next page)')
    .option('--limit <n>', 'at most this many', '100')
    .option('--json', 'one JSON record per line (NDJSON) instead of a table')
    .action(async (o: ListOptions) => {
      const q = parseList(o);
      if (typeof q === 'string') return usage(io, q);
      await withCurrentStore(o, io, async (store) => {
        const rows = await store.audit.list(q);
        if (o.json) {
          for (const r of rows) io.stdout(`${JSON.stringify(r)}\n`);
          return 0;
        }
        if (rows.length === 0) {
          io.stdout('no audit records\n');
          return 0;
        }
        const table = [['SEQ', 'TIME', 'ACTION', 'OUTCOME', 'ACTOR', 'TARGET'], ...rows.map(row)];
        const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
        for (const r of table) io.stdout(`${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')}\n`);
        return 0;
      });
    });
}

interface ApiOptions {
  url?: string;
  apiKey?: string;
  token?: string;
}

/** The chain check's answer, the same from the database and from GET /api/v1/audit/verify; the exit code. */
function printVerify(io: CliIO, result: AuditVerification): number {
  if (result.ok) {
    io.stdout(result.count === 0 ? 'OK: the audit log is empty\n' : `OK: ${result.count} records, chain intact (last seq ${result.lastSeq}, hash ${result.lastHash})\n`);
    return 0;
  }
  io.stdout(`BROKEN at seq ${result.seq}: ${result.problem}: ${result.detail}\n`);
  io.stdout(`${result.count} ${result.count === 1 ? 'record' : 'records'} before it verified\n`);
  return 1;
}

async function verifyOverApi(io: CliIO, o: ApiOptions): Promise<number> {
  const base = (o.url ?? io.env.AGENTPORT_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
  const token = o.token ?? (o.apiKey === undefined ? io.env.AGENTPORT_TOKEN : undefined);
  const apiKey = o.apiKey ?? io.env.AGENTPORT_API_KEY;
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : apiKey ? { 'x-api-key': apiKey } : {};
  let res: Response;
  try {
    res = await fetch(`${base}/api/v1/audit/verify`, { headers, signal: AbortSignal.timeout(60_000) });
  } catch (err) {
    const cause = (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message;
    io.stderr(`agentport: cannot reach ${base}: ${cause}; is the server running (agentport serve)?\n`);
    return EXIT.unreachable;
  }
  const text = await res.text();
  if (res.status === 401 || res.status === 403) {
    io.stderr(`agentport: ${base} refused the audit check (HTTP ${res.status}): it needs an admin credential (--api-key or --token)\n`);
    return EXIT.auth;
  }
  let result: AuditVerification | undefined;
  try {
    result = res.ok ? (JSON.parse(text) as AuditVerification) : undefined;
  } catch {
    result = undefined;
  }
  if (!result || typeof result.ok !== 'boolean') {
    io.stderr(`agentport: ${base}/api/v1/audit/verify answered HTTP ${res.status}${res.status === 404 ? ' (not an Agentport server, or an older one)' : ''}\n`);
    return EXIT.agentError;
  }
  return printVerify(io, result);
}

function row(r: AuditRecord): string[] {
  return [String(r.seq), new Date(r.time).toISOString(), r.action, r.outcome, r.actorClient ? `${r.actor} (${r.actorClient})` : r.actor, r.target ?? '-'];
}

function parseList(o: ListOptions): AuditQuery | string {
  const limit = Number(o.limit);
  if (!Number.isInteger(limit) || limit < 1) return `--limit ${JSON.stringify(o.limit)} is not a positive whole number`;
  if (o.outcome !== undefined && !['success', 'failure', 'denied'].includes(o.outcome)) return `--outcome must be success, failure or denied`;
  const since = o.since === undefined ? undefined : Date.parse(o.since);
  if (since !== undefined && !Number.isFinite(since)) return `--since ${JSON.stringify(o.since)} is not a date`;
  const after = o.after === undefined ? undefined : Number(o.after);
  if (after !== undefined && !Number.isInteger(after)) return `--after ${JSON.stringify(o.after)} is not a seq`;
  return {
    limit,
    ...(o.action !== undefined ? { action: o.action } : {}),
    ...(o.actor !== undefined ? { actor: o.actor } : {}),
    ...(o.target !== undefined ? { target: o.target } : {}),
    ...(o.outcome !== undefined ? { outcome: o.outcome as AuditRecord['outcome'] } : {}),
    ...(since !== undefined ? { since } : {}),
    ...(after !== undefined ? { afterSeq: after } : {}),
  };
}

function usage(io: CliIO, message: string): void {
  io.stderr(`agentport: ${message}\n(run agentport audit --help for usage)\n`);
  io.exit(2);
}
