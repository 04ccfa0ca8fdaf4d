/**
 * The image build that scripts/test-prerequisites.sh starts in the background runs niced, so that
 * until test/deploy/image.test.ts needs it, it only takes the CPU the other tests leave idle. Once
 * the test waits for it, it is the longest path of the run: this puts it back to normal priority.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { EARLY_BUILD_PID } from '../../scripts/image-build.mjs';

function readOr(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Parent pid of every process, from /proc/<pid>/stat (the field after the state; comm may hold spaces). */
function parents(): Map<number, number> {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    const stat = readOr(`/proc/${entry}/stat`);
    const fields = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields?.[1]) parentOf.set(Number(entry), Number(fields[1]));
  }
  return parentOf;
}

/** `root` and every process under it. */
function tree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, parent] of parents()) children.set(parent, [...(children.get(parent) ?? []), pid]);
  const found = [root];
  for (let i = 0; i < found.length; i++) found.push(...(children.get(found[i]!) ?? []));
  return found;
}

/**
 * Normal priority for the background build and everything it has started, when it is still
 * running; the pids changed. Twice over: a process started meanwhile by one not yet changed
 * inherits the nice value. A pid that is no longer the build's (the file is left behind) is left alone.
 */
export function hurryEarlyBuild(): number[] {
  const pid = Number(readOr(EARLY_BUILD_PID)?.trim());
  if (!Number.isInteger(pid) || pid <= 0 || !readOr(`/proc/${pid}/cmdline`)?.includes('image-build.lock')) return [];
  const changed = new Set<number>();
  for (let pass = 0; pass < 2; pass++) {
    for (const p of tree(pid)) {
      try {
        setPriority(p, 0);
        changed.add(p);
      } catch {
        // ended meanwhile
      }
    }
  }
  return [...changed];
}
