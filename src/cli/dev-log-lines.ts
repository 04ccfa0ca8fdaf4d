/**
 * Dev mode's log lines, for a person at a terminal rather than a log search: the server's JSON
 * lines (one pino object each) become `[12:04:31] WARN  message  key=value` and, for an error,
 * its message and the first stack frame in the user's own code (`agents/greeter.ts:12:11`), the
 * place to look. The stack's other frames are internals of Agentport or Node. `serve` keeps JSON.
 */
import path from 'node:path';

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** Fields every line has, or that say nothing to a person reading it. */
const SKIPPED = new Set(['level', 'time', 'service', 'msg', 'err', 'error', 'pid', 'hostname']);

interface LoggedError {
  type?: string;
  message?: string;
  stack?: string;
  code?: string;
}

/** One JSON log line as text (a line that is not JSON passes as it is). */
export function readableLogLine(line: string, projectDir: string, now: () => Date = () => new Date()): string {
  let entry: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return line;
    entry = parsed as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = typeof entry.time === 'number' ? new Date(entry.time) : now();
  const level = LEVEL_NAMES[Number(entry.level)] ?? 'LOG';
  const fields = Object.entries(entry)
    .filter(([k, v]) => !SKIPPED.has(k) && v !== undefined && (typeof v !== 'object' || v === null))
    .map(([k, v]) => `${k}=${String(v)}`);
  const msg = typeof entry.msg === 'string' ? entry.msg : '';
  const out = [`[${time.toTimeString().slice(0, 8)}] ${level.padEnd(5)} ${msg}${fields.length ? `  ${fields.join(' ')}` : ''}`];
  const err = (entry.err ?? entry.error) as LoggedError | undefined;
  if (err && typeof err === 'object') {
    const head = `${err.type && err.type !== 'Error' ? `${err.type}: ` : ''}${err.message ?? ''}`.trim();
    if (head) out.push(`    ${head}`);
    const where = userFrame(err.stack, projectDir);
    if (where) out.push(`    at ${where}`);
  }
  return `${out.join('\n')}\n`;
}

/** The first frame of `stack` in the project's own files (not node_modules, not Node), relative to it. */
export function userFrame(stack: string | undefined, projectDir: string): string | undefined {
  if (!stack) return undefined;
  for (const raw of stack.split('\n').slice(1)) {
    const m = /\(?((?:file:\/\/)?[^()\s]+):(\d+):(\d+)\)?\s*$/.exec(raw.trim());
    if (!m) continue;
    let file = m[1]!;
    if (file.startsWith('file://')) file = decodeURIComponent(new URL(file).pathname);
    // A module loaded again on reload carries `?v=N` (dev-reload.ts): the file is the same.
    file = file.replace(/\?.*$/, '');
    if (file.startsWith('node:') || !path.isAbsolute(file) || file.split(path.sep).includes('node_modules')) continue;
    const rel = path.relative(projectDir, file);
    if (rel.startsWith('..')) continue;
    return `${rel}:${m[2]}:${m[3]}`;
  }
  return undefined;
}
