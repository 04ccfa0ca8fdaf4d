/**
 * A child process whose output a test waits on: `waitFor(/pattern/)` resolves with the first
 * match in stdout + stderr (from `from` on), or rejects with everything printed so far.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface Spawned {
  child: ChildProcess;
  /** stdout and stderr interleaved, as printed */
  output(): string;
  waitFor(pattern: RegExp, timeoutMs?: number, from?: number): Promise<RegExpExecArray>;
  /** SIGTERM to the process group; waits for all of it to end (SIGKILL after `graceMs`); the leader's exit code */
  stop(graceMs?: number, only?: RegExp): Promise<number | null>;
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
  // 'close', not 'exit': the output is complete only when every process holding the pipes is gone.
  const exited = new Promise<number | null>((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal ? 128 : null))));
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
    async stop(graceMs = 10_000, only?: RegExp) {
      const pgid = child.pid!;
      const alive = () => {
        try {
          process.kill(-pgid, 0);
          return true;
        } catch {
          return false;
        }
      };
      // `only`: signal just the group's processes whose command line matches (the server under
      // `npm start`: npm forwards a signal to its child, so signalling both would send it twice).
      const targets = only ? groupMembers(pgid).filter((m) => only.test(m.cmd)) : [];
      if (targets.length) for (const t of targets) process.kill(t.pid, 'SIGTERM');
      else if (alive()) process.kill(-pgid, 'SIGTERM');
      const code = await Promise.race([exited, new Promise<null>((r) => setTimeout(() => r(null), graceMs))]);
      const deadline = Date.now() + graceMs;
      while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      if (alive()) process.kill(-pgid, 'SIGKILL');
      return code;
    },
  };
}

/** The processes of a process group, from /proc (Linux). */
function groupMembers(pgid: number): Array<{ pid: number; cmd: string }> {
  const out: Array<{ pid: number; cmd: string }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid) continue;
      out.push({ pid: Number(entry), cmd: readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ') });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
