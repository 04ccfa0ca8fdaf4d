/**
 * Test files in the order that finishes a run soonest: the longest first (issue 26). With three
 * workers, a seven-minute file that starts last keeps the run going for seven minutes after
 * everything else is done; started first, it overlaps the rest.
 *
 * The durations come from test/durations.json (seconds per file, from a full run; refresh with
 * `node scripts/test-durations.mjs <vitest output>…`), so the order holds on a fresh clone,
 * where vitest has no results cache of its own and would order by file size.
 *
 * A file not listed (one added since the last refresh) counts as the median of the listed files
 * being sorted: it starts among files of its likely size. Vitest runs unknown files first; that
 * put ten new `system` files, Chromium ones among them, ahead of the image build's test, the
 * longest of all, which then started minutes late (suite16, docs/benchmarks.md).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { longestFirst } from './longest-first-order.js';

const DURATIONS = path.join(import.meta.dirname, '../durations.json');

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = JSON.parse(readFileSync(DURATIONS, 'utf8')) as Record<string, number>;
    const root = this.ctx.config.root;
    // vitest's own order (its results cache, else file size) among equals.
    const fallback = await super.sort(files);
    return longestFirst(fallback, (f) => seconds[path.relative(root, f.moduleId).split(path.sep).join('/')]);
  }
}
