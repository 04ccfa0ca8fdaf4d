/**
 * `agentport clients create|list|delete`: OAuth clients registered by an administrator. Machine
 * clients (client credentials) exist only this way. A client secret is printed once.
 */
import type { Command } from 'commander';
import { ClientInputError, createClient, deleteClient, listClients, type NewClient } from '../../auth/oauth/client-registry.js';
import type { CliIO } from '../io.js';
import { storeOptions, type StoreOptions } from '../store-access.js';
import { withOAuthStore } from './users.js';

const CLIENTS_HELP = `
Examples:
  $ agentport clients create --name nightly-report --machine --scope a2a:publish
  $ agentport clients create --name my-app --redirect-uri https://app.example.com/callback
  $ agentport clients create --name report-service --machine --token-exchange --scope a2a:publish
  $ agentport clients create --name cli-tool --public --redirect-uri http://127.0.0.1/callback
  $ agentport clients list
  $ agentport clients delete ap-Xy…
`;

export function registerClients(program: Command, io: CliIO): void {
  const clients = program.command('clients').description('OAuth clients: create, list, delete').addHelpText('after', CLIENTS_HELP);

  storeOptions(clients.command('create').description('register a client; prints its secret once'), CLIENTS_HELP)
    .requiredOption('--name <name>', 'shown to users on the consent page')
    .option('--machine', 'a machine client (client credentials grant)')
    .option('--public', 'a public client (no secret; authorization code with PKCE)')
    .option('--token-exchange', "may exchange a user's access token for a narrower one naming the client as actor (RFC 8693)")
    .option('--redirect-uri <uri>', 'an allowed redirect URI (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--scope <scope>', 'a scope the client may receive (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .action(async (o: StoreOptions & { name: string; machine?: boolean; public?: boolean; tokenExchange?: boolean; redirectUri: string[]; scope: string[] }) => {
      if (o.machine && o.public) {
        io.stderr('agentport: --machine and --public exclude each other\n(run agentport clients create --help for usage)\n');
        io.exit(2);
        return;
      }
      const kind: NewClient['kind'] = o.machine ? 'machine' : o.public ? 'public' : 'confidential';
      await withOAuthStore(o, io, async (store, audit) => {
        try {
          const { client, clientSecret } = await createClient(store, { name: o.name, kind, redirectUris: o.redirectUri, scopes: o.scope, ...(o.tokenExchange ? { tokenExchange: true } : {}) });
          await audit({ action: 'client.created', target: `client:${client.clientId}`, details: { kind, name: o.name, ...(o.tokenExchange ? { tokenExchange: true } : {}) } });
          io.stdout(`client_id      ${client.clientId}\n`);
          if (clientSecret) io.stdout(`client_secret  ${clientSecret}\n`);
          io.stdout(`grants         ${client.grantTypes.join(' ')}\n`);
          if (client.scope) io.stdout(`scope          ${client.scope}\n`);
          if (clientSecret) io.stderr('Store the secret now: it is not shown again.\n');
          return 0;
        } catch (err) {
          if (!(err instanceof ClientInputError)) throw err;
          io.stderr(`agentport: ${err.message}\n`);
          return 2;
        }
      });
    });

  storeOptions(clients.command('list').description('list clients (registered and dynamic; never secrets)'), CLIENTS_HELP).action(async (o: StoreOptions) => {
    await withOAuthStore(o, io, async (store) => {
      const rows = await listClients(store);
      if (rows.length === 0) {
        io.stdout('no clients\n');
        return 0;
      }
      const table = [['CLIENT_ID', 'NAME', 'GRANTS', 'AUTH', 'REDIRECT_URIS'], ...rows.map((c) => [c.clientId, c.name ?? '-', c.grantTypes.join(','), c.authMethod, c.redirectUris.join(' ') || '-'])];
      const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
      for (const r of table) io.stdout(`${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')}\n`);
      return 0;
    });
  });

  storeOptions(clients.command('delete').description('delete a client; it can no longer obtain tokens').argument('<clientId>'), CLIENTS_HELP).action(async (clientId: string, o: StoreOptions) => {
    await withOAuthStore(o, io, async (store, audit) => {
      if (!(await deleteClient(store, clientId))) {
        io.stderr(`agentport: no client ${clientId}\n`);
        return 1;
      }
      await audit({ action: 'client.deleted', target: `client:${clientId}` });
      io.stdout(`deleted  ${clientId}\n`);
      return 0;
    });
  });
}
