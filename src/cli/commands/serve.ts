/** `agentport serve`: load the configuration, start the listeners, stop gracefully on a signal. */
import type { Command } from 'commander';
import { ConfigError, loadConfig, type Config, type ConfigOverrides } from '../../config/index.js';
import { formatBanner } from '../banner.js';
import { EXIT_CODES_HELP, startOrExit } from '../start-failure-message.js';
import type { CliIO } from '../io.js';
import { stopOnSignals } from '../shutdown.js';
import { firstStartNotice } from '../../server/first-start.js';
import { firstAdminUserNotice, type FirstAdminUser } from '../../auth/oauth/first-admin-user.js';

/** What `startServer` (src/server/start.ts) returns. */
export interface RunningServer {
  /** the admin API key a first start created: printed once, here */
  firstAdminKey?: string;
  /** the sign-in user a first start created: printed once, here */
  firstAdminUser?: FirstAdminUser;
  urls: { http: string; grpc?: string };
  agents: Array<{ id: string; url: string }>;
  close(): Promise<void>;
}

export type StartServer = (config: Config) => Promise<RunningServer>;

export interface ServeDependencies {
  /** default: startServer from src/server/start.ts, imported on first use */
  startServer?: StartServer;
}

export interface ServeOptions {
  config?: string;
  host?: string;
  port?: string;
  grpcPort?: string;
  dataDir?: string;
  logLevel?: string;
  auth?: string;
  allowInsecure?: boolean;
}

// Imported lazily so that --help, --version and configuration errors work without loading the
// server (and its native drivers). A taken port or a broken agent module is named before that
// import too (start-preflight.ts): a start that cannot succeed skips its ~0.8 s of CPU (issue 26).
const importStartServer: StartServer = (config) => startAfterPreflight(config);

/** The preflight, then the server's import and start (serve's, and dev's with its log destination). */
export async function startAfterPreflight(config: Config, options: { logDestination?: { write(line: string): void } } = {}) {
  const { preflightStart } = await import('../../server/start-preflight.js');
  await preflightStart(config);
  const [{ startServer }, { applyHeapSettings }] = await Promise.all([import('../../server/start.js'), import('../../server/heap-settings.js')]);
  const heapNotes = applyHeapSettings();
  return startServer(config, { ...options, probed: true, heapNotes });
}

const SERVE_HELP = `
Flags override the matching keys of the config file (server.host, server.port,
server.grpc.port, server.dataDir, server.logLevel).

Examples:
  $ agentport serve
  $ agentport serve --config ./agentport.yaml --port 9000
  $ agentport serve --host 0.0.0.0 --data-dir /var/lib/agentport --log-level debug
  $ agentport serve --auth none        # no authentication: loopback only, for experiments
${EXIT_CODES_HELP}`;

/** The flags of `serve`, shared with `dev`. */
export function serverOptions(command: Command): Command {
  return command
    .option('-c, --config <file>', 'config file (default: $AGENTPORT_CONFIG, else ./agentport.yaml if present)')
    .option('--host <host>', 'address to listen on (server.host, default 127.0.0.1)')
    .option('-p, --port <port>', 'HTTP port, 0 for any free port (server.port, default 8080)')
    .option('--grpc-port <port>', 'gRPC port, 0 for any free port (server.grpc.port, default 50051)')
    .option('--data-dir <dir>', 'directory for the database and keys (server.dataDir, default ./.agentport)')
    .option('--log-level <level>', 'fatal | error | warn | info | debug | trace | silent (server.logLevel, default info)')
    .option('--auth <mode>', 'required | none: none turns authentication off, for local experiments (auth.mode, default required)')
    .option('--allow-insecure', 'allow --auth none on a non-loopback host (auth.allowInsecureNone)');
}

export function registerServe(program: Command, io: CliIO, deps: ServeDependencies): void {
  serverOptions(program.command('serve').description('start the server: A2A over JSON-RPC, HTTP+JSON and gRPC, for every configured agent'))
    .addHelpText('after', SERVE_HELP)
    .action(async (options: ServeOptions) => {
      await serve(options, io, deps.startServer ?? importStartServer);
    });
}

/** The configuration `serve` (and `dev`) run: the file, the flags over it, and --auth. Throws ConfigError. */
export function loadServeConfig(options: ServeOptions, env: NodeJS.ProcessEnv, cwd: string): Config {
  const overrides: ConfigOverrides = {
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.grpcPort === undefined ? {} : { grpcPort: options.grpcPort }),
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
    ...(options.logLevel === undefined ? {} : { logLevel: options.logLevel }),
  };
  const config = loadConfig({ ...(options.config === undefined ? {} : { file: options.config }), overrides, env, cwd });
  if (options.auth === undefined && !options.allowInsecure) return config;
  return {
    ...config,
    auth: { ...config.auth, ...(options.auth ? { mode: options.auth as 'required' | 'none' } : {}), ...(options.allowInsecure ? { allowInsecureNone: true } : {}) },
  };
}

/** loadServeConfig, or undefined after printing why the flags or the file are not valid (exit code 2). */
export function configFromServeOptions(options: ServeOptions, io: CliIO): Config | undefined {
  if (options.auth !== undefined && options.auth !== 'required' && options.auth !== 'none') {
    io.stderr(`--auth: must be "required" or "none" (got ${JSON.stringify(options.auth)})\n`);
    io.exit(2);
    return undefined;
  }
  try {
    return loadServeConfig(options, io.env, io.cwd());
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.stderr(`${error.message}\n\nFix the file or run with --help.\n`);
    io.exit(2);
    return undefined;
  }
}

async function serve(options: ServeOptions, io: CliIO, startServer: StartServer): Promise<void> {
  const config = configFromServeOptions(options, io);
  if (!config) return;

  const server = await startOrExit(() => startServer(config), config, io);
  if (!server) return;

  // Before the banner: a supervisor that signals as soon as it reads the banner gets a graceful stop.
  stopOnSignals(server, io);
  io.stderr(formatBanner(config, server));
  // The only time this key is ever shown (only its hash is stored); stdout, so it can be captured.
  if (server.firstAdminKey) io.stdout(firstStartNotice(server.firstAdminKey, server.urls.http));
  if (server.firstAdminUser) io.stdout(firstAdminUserNotice(server.firstAdminUser));
}
