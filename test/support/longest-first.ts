/**
 * Test files in the order that finishes a run soonest: the longest first (issue 26). With three
 * workers, a seven-minute file that starts last keeps the run going for seven minutes after
 * everything else is done; started first, it overlaps the rest.
 *
 * The durations come from test/durations.json (seconds per file, from a full run; refresh with
 * `node scripts/test-durations.mjs <vitest output>…`), so the order holds on a fresh clone,
 * where vitest has no results cache of its own and would order by file size. A file not listed
 * (a new one) runs before the listed ones, as vitest runs unknown files first.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const DURATIONS = path.join(import.meta.dirname, '../durations.json');

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = JSON.parse(readFileSync(DURATIONS, 'utf8')) as Record<string, number>;
    const root = this.ctx.config.root;
    const known = (f: TestSpecification) => seconds[path.relative(root, f.moduleId).split(path.sep).join('/')];
    // vitest's own order (its results cache, else file size) among equals and for new files.
    const fallback = await super.sort(files);
    const rank = new Map(fallback.map((f, i) => [f, i]));
    return [...fallback].sort((a, b) => {
      const da = known(a);
      const db = known(b);
      if (da === undefined || db === undefined) return da === db ? rank.get(a)! - rank.get(b)! : da === undefined ? -1 : 1;
      return db - da || rank.get(a)! - rank.get(b)!;
    });
  }
}
