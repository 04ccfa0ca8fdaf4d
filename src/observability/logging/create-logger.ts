/**
 * The server's loggers: one pino root at `server.logLevel`, and a child per module (`module: push`
 * in each line) whose level `logging.levels` may set apart. Every line passes the secret scrubber
 * on its way out (redaction.ts), whatever logger wrote it.
 */
import { destination, levels, pino, type Logger } from 'pino';
import type { LogLevel, LoggingConfig, LogModule } from '../../config/index.js';
import { openLogTee, type LogTee } from './log-tee.js';
import { REDACT_PATHS, REDACTED, SecretScrubber } from './redaction.js';

export interface ServerLoggerOptions {
  /** `server.logLevel`: the root's level and that of every module not named in `logging.levels` */
  level: LogLevel;
  logging: Pick<LoggingConfig, 'levels'>;
  /** secrets this server was configured with, scrubbed from every line by value */
  secrets?: Iterable<string>;
  /** where lines go; default stdout */
  destination?: { write(line: string): void };
  /** the test tee (log-tee.ts); default: from the environment */
  tee?: LogTee;
}

export interface ServerLoggers {
  root: Logger;
  /** the named logger of one module, at its configured level */
  module(name: LogModule): Logger;
}

export function createServerLoggers(o: ServerLoggerOptions): ServerLoggers {
  const scrubber = new SecretScrubber(o.secrets);
  const tee = o.tee ?? openLogTee();
  // Turning the access log on asks for its lines: they are written whatever server.logLevel says.
  const configured = (name?: LogModule): LogLevel => (name === undefined ? o.level : (o.logging.levels[name] ?? (name === 'access' ? 'info' : o.level)));
  // With the tee on, loggers write down to its level and stdout keeps to the configured ones.
  const effective = (name?: LogModule): LogLevel => (tee && rank(tee.level) < rank(configured(name)) ? tee.level : configured(name));
  const out = o.destination ?? destination({ dest: 1, sync: true });
  const root = pino(
    {
      level: effective(),
      base: { service: 'agentport' },
      redact: { paths: [...REDACT_PATHS], censor: REDACTED },
      hooks: { streamWrite: (line) => scrubber.scrub(line) },
    },
    tee ? teed(out, tee, (name) => rank(configured(name))) : out,
  );
  const modules = new Map<LogModule, Logger>();
  return {
    root,
    module(name) {
      let log = modules.get(name);
      if (!log) {
        log = root.child({ module: name }, { level: effective(name) });
        modules.set(name, log);
      }
      return log;
    },
  };
}

function rank(level: LogLevel): number {
  return level === 'silent' ? Number.POSITIVE_INFINITY : (levels.values[level] ?? 0);
}

const LINE_LEVEL = /^\{"level":(\d+)/;
const LINE_MODULE = /"module":"(\w+)"/;

/** Every line to the tee; to `out` only those at or above their module's configured level. */
function teed(out: { write(line: string): void }, tee: LogTee, threshold: (name?: LogModule) => number): { write(line: string): void } {
  return {
    write(line) {
      tee.write(line);
      const level = Number(LINE_LEVEL.exec(line)?.[1] ?? Number.POSITIVE_INFINITY);
      if (level >= threshold(LINE_MODULE.exec(line)?.[1] as LogModule | undefined)) out.write(line);
    },
  };
}
