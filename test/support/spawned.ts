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
  /** SIGTERM to the process group; waits for all of it to end (SIGKILL after `graceMs`); the leader's exit code */
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
      const pgid = child.pid!;
      const alive = () => {
        try {
          process.kill(-pgid, 0);
          return true;
        } catch {
          return false;
        }
      };
      if (alive()) process.kill(-pgid, 'SIGTERM');
      const code = await Promise.race([exited, new Promise<null>((r) => setTimeout(() => r(null), graceMs))]);
      // The whole group, not only the leader: `npm start` exits on the signal before its server does.
      const deadline = Date.now() + graceMs;
      while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      if (alive()) process.kill(-pgid, 'SIGKILL');
      return code;
    },
  };
}
