/**
 * `agentport users create|list|set-scopes|delete`: the local users who sign in on the OAuth login page.
 * A generated password is printed once; passwords are stored as scrypt hashes only.
 */
import type { Command } from 'commander';
import { unknownScopeMessage } from '../../core/authz/scope-names.js';
import { createUser, publicUser, UserInputError } from '../../auth/oauth/local-users.js';
import type { OAuthStore } from '../../store/oauth-store.js';
import { recordCliEvent, type CliAudit } from '../cli-audit.js';
import type { CliIO } from '../io.js';
import { storeOptions, withCurrentStore, type StoreOptions } from '../store-access.js';

const USERS_HELP = `
Users sign in on the login page when an OAuth client (ChatGPT, Claude, the MCP Inspector) asks
for access. The database is the one the config file names (storage), or --storage
(sqlite:<path> or a postgres:// URL).

Examples:
  $ agentport users create alice                 # prints a generated password once
  $ agentport users create bob --scope a2a:discover --scope mcp:tools:sales
  $ agentport users list
  $ agentport users set-scopes bob --scope a2a:discover   # ends bob's sessions and grants
  $ agentport users delete bob
`;

export function registerUsers(program: Command, io: CliIO): void {
  const users = program.command('users').description('local users of the OAuth login page: create, list, set-scopes, delete').addHelpText('after', USERS_HELP);

  storeOptions(users.command('create').description('create a user; prints a generated password once').argument('<username>'), USERS_HELP)
    .option('--scope <scope>', 'a scope the user may grant to clients (repeatable); default a2a:discover a2a:publish mcp:tools', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--admin', 'the user may also grant the admin scope')
    .option('--password-stdin', 'read the password from standard input instead of generating one')
    .action(async (username: string, o: StoreOptions & { scope: string[]; admin?: boolean; passwordStdin?: boolean }) => {
      const password = o.passwordStdin ? (await readStdin()).replace(/\r?\n$/, '') : undefined;
      await withOAuthStore(o, io, async (store, audit) => {
        const scopes = o.admin ? ['admin'] : o.scope.length ? o.scope : undefined;
        try {
          const created = await createUser(store, { username, ...(password === undefined ? {} : { password }), ...(scopes ? { scopes } : {}) });
          await audit({ action: 'user.created', target: `user:${created.user.username}`, details: { scopes: created.user.scopes } });
          io.stdout(`user      ${created.user.username}\n`);
          io.stdout(`scopes    ${created.user.scopes.join(' ')}\n`);
          if (password === undefined) {
            io.stdout(`password  ${created.password}\n`);
            io.stderr('Store the password now: it is not shown again (only its scrypt hash is kept).\n');
          }
          return 0;
        } catch (err) {
          if (!(err instanceof UserInputError)) throw err;
          io.stderr(`agentport: ${err.message}\n`);
          return 2;
        }
      });
    });

  storeOptions(users.command('list').description('list users (never their passwords)'), USERS_HELP).action(async (o: StoreOptions) => {
    await withOAuthStore(o, io, async (store) => {
      const rows = (await store.listUsers()).map(publicUser);
      if (rows.length === 0) {
        io.stdout('no users\n');
        return 0;
      }
      const table = [['USER', 'SCOPES', 'CREATED'], ...rows.map((u) => [u.username, u.scopes.join(' '), u.createdAt])];
      const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
      for (const r of table) io.stdout(`${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')}\n`);
      return 0;
    });
  });

  storeOptions(users.command('set-scopes').description('replace a user’s scopes; ends their sign-in sessions and revokes their grants').argument('<username>'), USERS_HELP)
    .option('--scope <scope>', 'a scope the user may grant to clients (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--admin', 'the user may grant every scope, admin included')
    .action(async (username: string, o: StoreOptions & { scope: string[]; admin?: boolean }) => {
      await withOAuthStore(o, io, async (store, audit) => {
        const scopes = o.admin ? ['admin'] : o.scope;
        if (scopes.length === 0) {
          io.stderr('agentport: give at least one --scope, or --admin\n');
          return 2;
        }
        const unknownScope = unknownScopeMessage(scopes);
        if (unknownScope) {
          io.stderr(`agentport: ${unknownScope}\n`);
          return 2;
        }
        if (!(await store.setUserScopes(username, scopes))) {
          io.stderr(`agentport: no user ${username}\n`);
          return 1;
        }
        await audit({ action: 'user.scopes_changed', target: `user:${username}`, details: { scopes } });
        io.stdout(`user      ${username}\nscopes    ${scopes.join(' ')}\n`);
        return 0;
      });
    });

  storeOptions(users.command('delete').description('delete a user; ends their sign-in sessions and revokes their grants and refresh tokens').argument('<username>'), USERS_HELP).action(
    async (username: string, o: StoreOptions) => {
      await withOAuthStore(o, io, async (store, audit) => {
        if (!(await store.deleteUser(username))) {
          io.stderr(`agentport: no user ${username}\n`);
          return 1;
        }
        await audit({ action: 'user.deleted', target: `user:${username}` });
        io.stdout(`deleted  ${username}\n`);
        return 0;
      });
    },
  );
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Opens the store with its schema current (as `serve` would), runs `work` on its OAuth tables, closes it. */
export async function withOAuthStore(options: StoreOptions, io: CliIO, work: (store: OAuthStore, audit: CliAudit) => Promise<number>): Promise<void> {
  await withCurrentStore(options, io, (store) => work(store.oauth, (e) => recordCliEvent(store, io, e)));
}
