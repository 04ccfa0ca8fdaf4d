/**
 * Vitest global setup: every server a test run starts, in the test processes and in the child
 * processes they spawn, copies its log lines at `trace` into one directory (AGENTPORT_LOG_TEE,
 * src/observability/logging/log-tee.ts). When the run ends, every line is searched for the
 * secrets the fixtures use and for anything shaped like an API key, a JWT, a bearer token or a
 * URL password; the run fails naming the file, the line and the secret (issue 14, item 3).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KNOWN_SECRETS, SECRET_SHAPES } from './known-secrets.js';

export default function setup(): () => void {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentport-log-tee-'));
  process.env.AGENTPORT_LOG_TEE = dir;
  process.env.AGENTPORT_LOG_TEE_LEVEL ??= 'trace';
  return () => {
    const { leaks, files, lines } = findSecrets(dir);
    process.stderr.write(`log secrets check: ${lines} log lines in ${files} files searched, ${leaks.length} secrets found\n`);
    if (leaks.length === 0) rmSync(dir, { recursive: true, force: true });
    else throw new Error(`secrets in the log output of this test run (lines kept in ${dir}):\n${leaks.slice(0, 20).join('\n')}${leaks.length > 20 ? `\n… and ${leaks.length - 20} more` : ''}`);
  };
}

/** `file:line: what` for every line holding a known secret or a secret's shape. */
export function findSecrets(dir: string): { leaks: string[]; files: number; lines: number } {
  const leaks: string[] = [];
  const names = readdirSync(dir);
  let count = 0;
  for (const name of names) {
    const lines = readFileSync(path.join(dir, name), 'utf8').split('\n');
    count += lines.length - 1;
    lines.forEach((line, i) => {
      for (const secret of KNOWN_SECRETS) if (line.includes(secret)) leaks.push(`${name}:${i + 1}: holds ${JSON.stringify(secret)}: ${line.slice(0, 300)}`);
      for (const [what, shape] of SECRET_SHAPES) if (shape.test(line)) leaks.push(`${name}:${i + 1}: holds ${what}: ${line.slice(0, 300)}`);
    });
  }
  return { leaks, files: names.length, lines: count };
}
