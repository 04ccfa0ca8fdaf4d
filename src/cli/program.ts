/**
 * The `agentport` command. Each subcommand lives in commands/<name>.ts and registers itself here;
 * next to `serve`: dev, init, card, send, tasks, keys, users, clients, audit, db, connect, usage.
 */
import { Command, CommanderError } from 'commander';
import { registerCard } from './commands/card.js';
import { registerConnect } from './commands/connect.js';
import { registerDb } from './commands/db.js';
import { registerDev } from './commands/dev.js';
import { registerInit } from './commands/init.js';
import { registerKeys } from './commands/keys.js';
import { registerAudit } from './commands/audit.js';
import { registerUsers } from './commands/users.js';
import { registerClients } from './commands/clients.js';
import { registerSend } from './commands/send.js';
import { registerServe, type ServeDependencies } from './commands/serve.js';
import { registerTasks } from './commands/tasks.js';
import { registerUsage } from './commands/usage.js';
import type { CliIO } from './io.js';
import { packageVersion } from '../config/package-version.js';

export type CliDependencies = ServeDependencies;

const EXAMPLES = `
Examples:
  $ agentport serve                                serve the built-in echo and table-expert agents on http://127.0.0.1:8080
  $ agentport serve --config agentport.yaml        serve the agents described in a config file
  $ agentport serve --port 9000 --grpc-port 0      HTTP on port 9000, gRPC on any free port
  $ agentport init my-agent --template streaming   a new TypeScript agent project (then npm install && npm start)
  $ agentport dev                                  serve, reloading agents and agentport.yaml when they change
  $ AGENTPORT_CONFIG=prod.yaml agentport serve     take the config file path from the environment
  $ agentport card http://127.0.0.1:8080/a2a/echo  what an agent offers (any A2A agent, v1.0 or v0.3)
  $ agentport send http://127.0.0.1:8080/a2a/echo "hello" --stream    talk to it, live (docs/cli.md)

Without --config, ./agentport.yaml is used when it exists; otherwise built-in defaults apply.
Every configuration key is described in docs/configuration.md.
`;

export function createProgram(io: CliIO, deps: CliDependencies = {}): Command {
  const program = new Command('agentport');
  program
    .description('One front door for AI agents: A2A v1.0 (JSON-RPC, HTTP+JSON, gRPC) and MCP behind one authorization model.')
    .version(packageVersion(), '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand('help [command]', 'show help for a command')
    .configureOutput({ writeOut: (text) => io.stdout(text), writeErr: (text) => io.stderr(text) })
    .showHelpAfterError('(run agentport --help for usage)')
    // Throw instead of exiting, so runCli picks the exit code and tests can run the program in-process.
    .exitOverride()
    .addHelpText('after', EXAMPLES);

  registerServe(program, io, deps);
  registerDev(program, io);
  registerInit(program, io);
  registerDb(program, io);
  registerKeys(program, io);
  registerUsers(program, io);
  registerClients(program, io);
  registerAudit(program, io);
  registerCard(program, io);
  registerSend(program, io);
  registerTasks(program, io);
  registerConnect(program, io);
  registerUsage(program, io);
  pointUsageErrorsAtOwnHelp(program);
  return program;
}

/**
 * commander copies the root's "(run agentport --help …)" hint into every subcommand; a mistyped
 * option of `tasks list` should point at `agentport tasks list --help`, where that option is.
 */
function pointUsageErrorsAtOwnHelp(cmd: Command, path: string[] = []): void {
  for (const sub of cmd.commands) {
    const full = [...path, sub.name()];
    sub.showHelpAfterError(`(run agentport ${full.join(' ')} --help for usage)`);
    pointUsageErrorsAtOwnHelp(sub, full);
  }
}

/** 0 for help and version, 2 for usage errors (like a bad configuration), else commander's code. */
function exitCodeFor(error: CommanderError): number {
  switch (error.code) {
    case 'commander.helpDisplayed':
    case 'commander.version':
      return 0;
    case 'commander.help':
    case 'commander.executeSubCommandAsync':
      return error.exitCode;
    default:
      return 2;
  }
}

export async function runCli(argv: readonly string[], io: CliIO, deps: CliDependencies = {}): Promise<void> {
  const program = createProgram(io, deps);
  try {
    await program.parseAsync([...argv]);
  } catch (error) {
    if (error instanceof CommanderError) {
      io.exit(exitCodeFor(error));
      return;
    }
    io.stderr(`agentport: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    io.exit(1);
  }
}
