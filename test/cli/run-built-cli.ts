/**
 * Runs the built `agentport` command as a child process, the two ways an operator meets it: with
 * stdout and stderr redirected to files (a service manager, a CI log), and on a pseudo-terminal
 * (util-linux `script`), where stdout and stderr share one terminal.
 */
import { spawn, spawnSync, type ChildProcess, type StdioOptions } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireBuilt } from '../support/fresh-build.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const bin = path.join(root, 'bin/agentport.js');
// The child runs dist/: built again here when a source is newer, and a failure names what is missing.
requireBuilt('dist/cli/main.js');
export const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
/**
 * Whether this machine gives a private mount namespace (as root, or as a user mapped to root):
 * there a directory can be made read-only, or a tiny tmpfs mounted, for one child only.
 */
export const hasMountNamespace = (() => {
  const probe = mkdtempSync(path.join(tmpdir(), 'agentport-ns-'));
  const script = 'mount -t tmpfs -o size=64k tmpfs "$0" && mount -o remount,ro "$0"';
  const ok = spawnSync('unshare', ['--map-root-user', '--mount', 'sh', '-c', script, probe], { stdio: 'ignore' }).status === 0;
  rmSync(probe, { recursive: true, force: true });
  return ok;
})();

/** The prefix that runs the command with `dir` read-only (a bind mount, in its own namespace). */
export const readOnly = (dir: string) => ['unshare', '--map-root-user', '--mount', 'sh', '-c', 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"', dir];

/** The prefix that runs the command with a tmpfs of `size` mounted on `dir` (its own namespace). */
export const tinyFileSystem = (dir: string, size: string) => ['unshare', '--map-root-user', '--mount', 'sh', '-c', `mount -t tmpfs -o size=${size} tmpfs "$0" && exec "$@"`, dir];

export const tempDir = (prefix = 'agentport-startup-') => mkdtempSync(path.join(tmpdir(), prefix));

export interface CliRun {
  /** null when the child had to be killed: it hung */
  code: number | null;
  stderr: string;
  stdout: string;
}

export interface RunOptions {
  cwd: string;
  /** a command line the node process is started under (e.g. unshare …), its last word "node" */
  prefix?: string[];
  timeoutMs?: number;
}

function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.AGENTPORT_CONFIG;
  for (const key of ['GRPC_VERBOSITY', 'GRPC_NODE_VERBOSITY', 'GRPC_TRACE', 'GRPC_NODE_TRACE']) delete env[key];
  return env;
}

function commandLine(args: readonly string[], opts: RunOptions): string[] {
  return [...(opts.prefix ?? []), process.execPath, bin, ...args];
}

/**
 * The child run to its end without blocking this worker: a synchronous wait (spawnSync) of several
 * seconds on a loaded machine starved vitest's own messages, and the run failed with "Timeout
 * calling onTaskUpdate" although every test passed. Killed (code null) after `timeoutMs`.
 */
function runToEnd(cmd: string, args: string[], opts: RunOptions, stdio: Array<'ignore' | 'pipe' | number>): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: childEnv(), stdio: stdio as StdioOptions });
    let stdout = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 20_000);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout });
    });
  });
}

/** stdout and stderr each to a file, read back after the child ended. */
export async function runWithOutputInFiles(args: readonly string[], opts: RunOptions): Promise<CliRun> {
  const dir = tempDir('agentport-out-');
  const outFile = path.join(dir, 'stdout.log');
  const errFile = path.join(dir, 'stderr.log');
  const out = openSync(outFile, 'w');
  const err = openSync(errFile, 'w');
  try {
    const [cmd, ...rest] = commandLine(args, opts);
    const { code } = await runToEnd(cmd!, rest, opts, ['ignore', out, err]);
    return { code, stdout: readFileSync(outFile, 'utf8'), stderr: readFileSync(errFile, 'utf8') };
  } finally {
    closeSync(out);
    closeSync(err);
  }
}

const shellQuote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/** On a pseudo-terminal: what the terminal showed is `stderr` (stdout shares it), CRLF as LF. */
export async function runOnPseudoTerminal(args: readonly string[], opts: RunOptions): Promise<CliRun> {
  const line = commandLine(args, opts).map(shellQuote).join(' ');
  // -e: script exits with the child's status; -q: no "Script started" lines; the log goes nowhere.
  const result = await runToEnd('script', ['-qec', line, '/dev/null'], opts, ['ignore', 'pipe', 'ignore']);
  const terminal = result.stdout.replace(/\r\n/g, '\n');
  return { code: result.code, stdout: terminal, stderr: terminal };
}

export type Runner = typeof runWithOutputInFiles;
export const RUNNERS: ReadonlyArray<[string, Runner]> = [['stderr to a file', runWithOutputInFiles], ...(hasScript ? ([['a pseudo-terminal', runOnPseudoTerminal]] as Array<[string, Runner]>) : [])];

/** Whether a port on 127.0.0.1 can be bound now: nothing is (still) listening on it. */
export function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Holds a port on 127.0.0.1 for the duration of a test, as another program would. */
export async function occupyPort(): Promise<{ port: number; release(): Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return { port, release: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A server started by the real CLI and left running; its output is collected as it comes. */
export interface RunningCli {
  child: ChildProcess;
  readonly stdout: string;
  readonly stderr: string;
  /** resolves when stderr shows the banner (rejects if the process ends first) */
  started: Promise<void>;
  /** sends SIGTERM and resolves with the exit code */
  stop(): Promise<number | null>;
}

export function startCli(args: readonly string[], opts: RunOptions): RunningCli {
  const [cmd, ...rest] = commandLine(args, opts);
  const child = spawn(cmd!, rest, { cwd: opts.cwd, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started = new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.includes('is running.')) resolve();
    });
    void exited.then((code) => reject(new Error(`agentport exited with ${code} before starting:\n${stderr}`)));
  });
  started.catch(() => {});
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    started,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
