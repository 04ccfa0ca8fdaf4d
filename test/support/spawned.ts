/**
 * A child process whose output a test waits on: `waitFor(/pattern/)` resolves with the first
 * match in stdout + stderr (from `from` on), or rejects with everything printed so far.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

export interface Spawned {
  child: ChildProcess;
  /** stdout and stderr interleaved, as printed */
  output(): string;
  waitFor(pattern: RegExp, timeoutMs?: number, from?: number): Promise<RegExpExecArray>;
  /** SIGTERM to the process group, then its exit code (SIGKILL after `graceMs`) */
  stop(graceMs?: number): Promise<number | null>;
}

export function spawnWatched(command: string, args: readonly string[], options: SpawnOptions): Spawned {
  // Its own process group, so that stop() reaches `npm start`'s grandchildren too.
  const child = spawn(command, [...args], { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    text += chunk.toString();
    for (const w of waiters) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : null))));
  return {
    child,
    output: () => text,
    waitFor(pattern, timeoutMs = 30_000, from = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = pattern.exec(text.slice(from));
          if (m) {
            done();
            resolve(m);
          }
        };
        const timer = setTimeout(() => (done(), reject(new Error(`timed out waiting for ${pattern}; output so far:\n${text}`))), timeoutMs);
        const onExit = () => (done(), reject(new Error(`process exited while waiting for ${pattern}; output:\n${text}`)));
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
          child.off('exit', onExit);
        };
        waiters.add(check);
        child.once('exit', onExit);
        check();
      });
    },
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        return exited;
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }, graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
