/**
 * `agentport keys create|list|revoke`: API keys stored in the database (hashed), for callers that
 * cannot do OAuth. A key is shown once, at creation; list never shows secrets.
 */
import type { Command } from 'commander';
import { createApiKey } from '../../auth/api-keys.js';
import { loadConfig } from '../../config/index.js';
import { unknownScopeMessage } from '../../core/authz/scope-names.js';
import { recordCliEvent } from '../cli-audit.js';
import type { CliIO } from '../io.js';
import { storeOptions, withCurrentStore, type StoreOptions } from '../store-access.js';

interface CreateOptions extends StoreOptions {
  subject: string;
  scope: string[];
  usecase?: string;
  expires?: string;
}

const KEYS_HELP = `
Keys are presented as "Authorization: Bearer <key>" or "X-API-Key: <key>". The database is the
one the config file names (storage), or --storage (sqlite:<path> or a postgres:// URL).

Examples:
  $ agentport keys create --subject ci-bot --scope a2a:discover --scope a2a:publish --expires 90d
  $ agentport keys list --config agentport.yaml
  $ agentport keys revoke 3f9c0a1b2c3d4e5f
`;

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `30d`, `12h`, `90m`, `2w`, or an RFC 3339 date; undefined when it is neither or not in the future. */
export function parseExpiry(text: string, now: number): number | undefined {
  const m = /^(\d+)\s*([smhdw])$/.exec(text.trim());
  const at = m ? now + Number(m[1]) * UNITS[m[2]!]! : /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : NaN;
  return Number.isFinite(at) && at > now ? at : undefined;
}

/** The skills' scopes of the config file, which a key may carry too; none when there is no readable file (--storage alone). */
function configuredSkillScopes(o: StoreOptions, io: CliIO): string[] {
  if (o.storage !== undefined && o.config === undefined) return [];
  try {
    const config = loadConfig({ ...(o.config === undefined ? {} : { file: o.config }), env: io.env, cwd: io.cwd() });
    return [...new Set(config.agents.flatMap((a) => Object.values(a.skills).flatMap((sk) => sk.scopes ?? [])))];
  } catch {
    return [];
  }
}

export function registerKeys(program: Command, io: CliIO): void {
  const keys = program.command('keys').description('API keys stored in the database: create, list, revoke').addHelpText('after', KEYS_HELP);
  const common = (cmd: Command): Command => storeOptions(cmd, KEYS_HELP);

  common(keys.command('create').description('create a key for a subject; prints it once'))
    .requiredOption('--subject <subject>', 'who the key authenticates as (tasks are owned by it)')
    .option('--scope <scope>', 'a scope the key carries (repeatable), e.g. a2a:discover', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--usecase <usecase>', 'bind the key to one usecase')
    .option('--expires <when>', 'lifetime (30d, 12h, 2w) or an RFC 3339 date; default: never')
    .action(async (o: CreateOptions) => {
      const now = Date.now();
      let expiresAt: number | undefined;
      if (o.expires !== undefined) {
        expiresAt = parseExpiry(o.expires, now);
        if (expiresAt === undefined) {
          io.stderr(`agentport: --expires ${JSON.stringify(o.expires)} is not a lifetime such as 30d, 12h, 2w or a future RFC 3339 date\n(run agentport keys create --help for usage)\n`);
          io.exit(2);
          return;
        }
      }
      const unknownScope = unknownScopeMessage(o.scope, configuredSkillScopes(o, io));
      if (unknownScope) {
        io.stderr(`agentport: ${unknownScope}\n(run agentport keys create --help for usage)\n`);
        io.exit(2);
        return;
      }
      if (!o.subject.trim()) {
        io.stderr('agentport: --subject must not be empty\n(run agentport keys create --help for usage)\n');
        io.exit(2);
        return;
      }
      await withCurrentStore(o, io, async (store) => {
        const created = createApiKey({
          subject: o.subject,
          scopes: o.scope,
          ...(o.usecase === undefined ? {} : { usecase: o.usecase }),
          ...(expiresAt === undefined ? {} : { expiresAt }),
          now,
        });
        await store.putApiKey(created.record);
        await recordCliEvent(store, io, {
          action: 'apikey.created',
          target: `apikey:${created.record.keyId}`,
          details: { subject: created.record.subject, scopes: created.record.scopes, ...(created.record.usecase !== undefined ? { usecase: created.record.usecase } : {}) },
        });
        io.stdout(`key      ${created.key}\n`);
        io.stdout(`id       ${created.record.keyId}\n`);
        io.stdout(`subject  ${created.record.subject}\n`);
        io.stdout(`scopes   ${created.record.scopes.join(' ') || '(none)'}\n`);
        if (created.record.usecase !== undefined) io.stdout(`usecase  ${created.record.usecase}\n`);
        io.stdout(`expires  ${expiresAt === undefined ? 'never' : new Date(expiresAt).toISOString()}\n`);
        io.stderr('Store the key now: it is not shown again (only its hash is kept).\n');
        return 0;
      });
    });

  common(keys.command('list').description('list keys (never their secrets)')).action(async (o: StoreOptions) => {
    await withCurrentStore(o, io, async (store) => {
      const now = Date.now();
      const rows = (await store.listApiKeys()).map((k) => [
        k.keyId,
        k.subject,
        k.scopes.join(' ') || '-',
        k.usecase ?? '-',
        new Date(k.createdAt).toISOString(),
        k.expiresAt === undefined ? 'never' : new Date(k.expiresAt).toISOString(),
        k.revokedAt !== undefined ? 'revoked' : k.expiresAt !== undefined && k.expiresAt <= now ? 'expired' : 'active',
      ]);
      if (rows.length === 0) {
        io.stdout('no API keys\n');
        return 0;
      }
      const table = [['ID', 'SUBJECT', 'SCOPES', 'USECASE', 'CREATED', 'EXPIRES', 'STATUS'], ...rows];
      const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
      for (const r of table) io.stdout(`${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')}\n`);
      return 0;
    });
  });

  common(keys.command('revoke').description('revoke a key by its id; it stops working at once').argument('<keyId>', 'the id shown by create and list')).action(async (keyId: string, o: StoreOptions) => {
    await withCurrentStore(o, io, async (store) => {
      if (!(await store.revokeApiKey(keyId, Date.now()))) {
        io.stderr(`agentport: no API key with id ${keyId}\n`);
        return 1;
      }
      await recordCliEvent(store, io, { action: 'apikey.revoked', target: `apikey:${keyId}` });
      io.stdout(`revoked  ${keyId}\n`);
      return 0;
    });
  });
}
