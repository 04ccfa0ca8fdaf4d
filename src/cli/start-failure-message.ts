/**
 * What `serve` prints when the server cannot start, and the exit code: one message naming the
 * thing, the cause and the fix. The codes are listed in `agentport serve --help` and docs/cli.md.
 */
import type { Config } from '../config/index.js';
import { toStartFailure } from '../server/start-failure.js';

/** Exit codes of `agentport serve` when it cannot start (and 0 after a graceful stop). */
export const START_EXIT_CODES = { configuration: 2, other: 1 } as const;

export const EXIT_CODES_HELP = `
Exit codes:
  0    stopped on SIGINT/SIGTERM after finishing open requests
  1    could not start or keep running: a port in use, a data directory or database that cannot be
       written or is damaged, an agent module that throws while it loads, an unexpected error
  2    the configuration is refused: an invalid config file or flag, an agent module that is not
       found, has a syntax error or exports no valid agent, --auth none on a non-loopback host
  130  a second SIGINT while stopping (143 for SIGTERM): exited without waiting
Each failure is one message on stderr naming what failed, why, and how to fix it.
`;

/**
 * Starts the server, or prints why it could not and exits with the failure's code (undefined
 * then): the one start path of `serve` and `dev`.
 */
export async function startOrExit<S>(start: () => Promise<S>, config: Config, io: { stderr(text: string): void; exit(code: number): void }): Promise<S | undefined> {
  try {
    return await start();
  } catch (error) {
    const failure = describeStartFailure(error, config);
    io.stderr(failure.text);
    io.exit(failure.exitCode);
    return undefined;
  }
}

export function describeStartFailure(error: unknown, config: Config): { text: string; exitCode: number } {
  if ((error as { code?: unknown } | undefined)?.code === 'ERR_MODULE_NOT_FOUND' && /server[\\/]start\.js/.test(String((error as Error).message))) {
    return { text: 'Cannot start: this build has no server module (dist/server/start.js).\n  Fix: run npm run build.\n', exitCode: START_EXIT_CODES.other };
  }
  const failure = toStartFailure(error, config);
  const lines = [`Cannot start: ${failure.subject} ${failure.problem}.`, `  Fix: ${failure.fix}.`];
  if (config.file) lines.push(`  Config: ${config.file}`);
  return { text: `${lines.join('\n')}\n`, exitCode: failure.kind === 'configuration' ? START_EXIT_CODES.configuration : START_EXIT_CODES.other };
}
