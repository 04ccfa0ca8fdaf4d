/**
 * `agentport dev`: `serve` for the inner loop. Edits to an agent's module or to agentport.yaml are
 * loaded into the running process (src/server/dev-reload.ts), one line per reload; the banner
 * lists every URL to try and, with authentication on, a key for local use that lives as long as
 * the process (it is in no file and no database).
 */
import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import type { ApiKeyConfig, Config } from '../../config/index.js';
import { startOrExit } from '../start-failure-message.js';
import { formatDevBanner } from '../dev-banner.js';
import type { CliIO } from '../io.js';
import { stopOnSignals } from '../shutdown.js';
import { packageVersion } from '../../config/package-version.js';
import { configFromServeOptions, loadServeConfig, serverOptions, type ServeOptions } from './serve.js';
import { firstStartNotice } from '../../server/first-start.js';
import { firstAdminUserNotice } from '../../auth/oauth/first-admin-user.js';
import { SCOPES } from '../../core/authz/scopes.js';

const DEV_HELP = `
Watches the folder of the config file (and of every agent module). Saving an agent's module
reloads that agent; saving the config file applies its agents[] changes; tasks already running
finish on the code they started with. A reload that fails keeps the previous version and says why.
Changes to listeners, storage, authentication or an agent's access settings need a restart.

Examples:
  $ agentport dev
  $ agentport dev --config ./agentport.yaml --port 0
`;

export function registerDev(program: Command, io: CliIO): void {
  serverOptions(program.command('dev').description('serve with reloads: edits to agents and agentport.yaml apply without a restart'))
    .addHelpText('after', DEV_HELP)
    .action(async (options: ServeOptions) => {
      await dev(options, io);
    });
}

async function dev(options: ServeOptions, io: CliIO): Promise<void> {
  const loaded = configFromServeOptions(options, io);
  if (!loaded) return;
  const devKey: ApiKeyConfig | undefined =
    loaded.auth.mode === 'required' ? { key: `dev_${randomBytes(24).toString('base64url')}`, subject: 'dev', scopes: [SCOPES.discover, SCOPES.publish, SCOPES.mcpTools] } : undefined;
  const withDevKey = (c: Config): Config => (devKey ? { ...c, auth: { ...c.auth, apiKeys: [...c.auth.apiKeys, devKey] } } : c);
  const config = withDevKey(loaded);

  const [{ startServer }, { DevReloader }, { DevWatcher }] = await Promise.all([import('../../server/start.js'), import('../../server/dev-reload.js'), import('../../server/dev-watch.js')]);
  const server = await startOrExit(() => startServer(config), config, io);
  if (!server) return;

  const warn = (obj: object, msg?: string) => io.stderr(`${stamp()} ${msg ?? ''} ${JSON.stringify(obj)}\n`);
  const reloader = new DevReloader(
    server.agentSlots,
    config,
    { log: { debug() {}, warn }, version: packageVersion(), ...(server.agentSlots.callerIdentity ? { callerIdentity: server.agentSlots.callerIdentity } : {}) },
    server.audit,
  );
  const watcher = new DevWatcher({
    reloader,
    rereadConfig: () => withDevKey(loadServeConfig(options, io.env, io.cwd())),
    report: (result) => io.stderr(`${stamp()} ${result.ok ? '↻' : '✗'} ${result.line}\n`),
  });
  // Built-in agents only, and no file to edit: nothing could reload.
  const watched = config.file || reloader.modules().size ? watcher.start() : [];

  io.stderr(formatDevBanner(server.agentSlots.config, server, { watched, ...(devKey ? { devKey: devKey.key } : {}) }));
  if (server.firstAdminKey) io.stdout(firstStartNotice(server.firstAdminKey, server.urls.http));
  if (server.firstAdminUser) io.stdout(firstAdminUserNotice(server.firstAdminUser));
  stopOnSignals(
    {
      close: async () => {
        watcher.close();
        await reloader.close();
        await server.close();
      },
    },
    io,
  );
}

function stamp(): string {
  return `[${new Date().toTimeString().slice(0, 8)}]`;
}
