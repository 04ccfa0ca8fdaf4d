/**
 * `agentport dev`: `serve` for the inner loop. Edits to an agent's module or to agentport.yaml are
 * loaded into the running process (src/server/dev-reload.ts), one line per reload; the banner
 * lists every URL to try and, with authentication on, a key for local use that lives as long as
 * the process (it is in no file and no database).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Command } from 'commander';
import type { ApiKeyConfig, Config } from '../../config/index.js';
import { startOrExit } from '../start-failure-message.js';
import { cliCommandFor, formatDevBanner } from '../dev-banner.js';
import { PACKAGE_ROOT } from '../init/scaffold.js';
import { readableLogLine } from '../dev-log-lines.js';
import type { CliIO } from '../io.js';
import { stopOnSignals } from '../shutdown.js';
import { packageVersion } from '../../config/package-version.js';
import { configFromServeOptions, loadServeConfig, serverOptions, startAfterPreflight, type ServeOptions } from './serve.js';
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

  // Log lines for a person: message, fields, and an error's place in the user's code (dev-log-lines.ts).
  const readable = (line: string) => io.stderr(readableLogLine(line, config.baseDir));
  // serve's preflight first: a taken port or a broken agent module is named before the server loads.
  const server = await startOrExit(() => startAfterPreflight(config, { logDestination: { write: readable } }), config, io);
  if (!server) return;
  const [{ DevReloader }, { DevWatcher }] = await Promise.all([import('../../server/dev-reload.js'), import('../../server/dev-watch.js')]);

  const warn = (obj: object, msg?: string) => readable(JSON.stringify({ level: 40, time: Date.now(), msg: msg ?? '', ...withErrorFields(obj) }));
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

  const cli = cliCommandFor(io.cwd(), path.join(PACKAGE_ROOT, 'bin', 'agentport.js'));
  io.stderr(formatDevBanner(server.agentSlots.config, server, { watched, cli, ...(devKey ? { devKey: devKey.key } : {}) }));
  if (server.firstAdminKey) io.stdout(firstStartNotice(server.firstAdminKey, server.urls.http, 'ADMIN_KEY'));
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

/** `err` (an Error, which JSON.stringify would make `{}`) as the fields a log line has. */
function withErrorFields(obj: object): object {
  const err = (obj as { err?: unknown }).err;
  if (!(err instanceof Error)) return obj;
  return { ...obj, err: { type: err.name, message: err.message, stack: err.stack } };
}

function stamp(): string {
  return `[${new Date().toTimeString().slice(0, 8)}]`;
}
