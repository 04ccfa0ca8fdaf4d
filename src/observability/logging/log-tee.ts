/**
 * A copy of every log line in a file, for tests: with `AGENTPORT_LOG_TEE=<dir>` set, each process
 * appends the lines of all its loggers to `<dir>/agentport-<pid>.log`, so a whole test run can be
 * searched afterwards for secrets that must never be logged (test/support/log-secrets-check.ts).
 *
 * The copy is taken at `AGENTPORT_LOG_TEE_LEVEL` (default trace), below the configured levels, so
 * that the search sees the lines a verbose operator would get; stdout still gets only the lines
 * at the configured levels. Not an operator feature: operators collect stdout.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { destination, type DestinationStream } from 'pino';
import { LOG_LEVELS, type LogLevel } from '../../config/index.js';

export const LOG_TEE_ENV = 'AGENTPORT_LOG_TEE';
export const LOG_TEE_LEVEL_ENV = 'AGENTPORT_LOG_TEE_LEVEL';

export interface LogTee {
  /** the level lines are copied from */
  level: LogLevel;
  write(line: string): void;
}

/** One file per process, shared by every server the process starts. */
let file: DestinationStream | undefined;

export function openLogTee(env: NodeJS.ProcessEnv = process.env): LogTee | undefined {
  const dir = env[LOG_TEE_ENV];
  if (!dir) return undefined;
  const wanted = env[LOG_TEE_LEVEL_ENV];
  const level: LogLevel = wanted && (LOG_LEVELS as readonly string[]).includes(wanted) ? (wanted as LogLevel) : 'trace';
  if (!file) {
    mkdirSync(dir, { recursive: true });
    // Synchronous: a test process that ends abruptly still leaves every line it logged.
    file = destination({ dest: path.join(dir, `agentport-${process.pid}.log`), sync: true, append: true });
  }
  const out = file;
  return { level, write: (line) => out.write(line) };
}
