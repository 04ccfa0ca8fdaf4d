/**
 * Dates inferred at load (issue 31 item 4), in process: human date strings and US date-times in a
 * CSV become DATE / TIMESTAMP, a column with one value off the format stays text, and integer years (a
 * real public table's `independence`) filter as years. Expected values are computed from the
 * rows written here, or read from the public file with plain JS.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTableExpertAgent, parseTableExpertOptions, type TableExpert } from '../../../../src/agents/table-expert/index.js';
import { PUBLIC_DATA } from '../eval/run-eval.js';

const CSV = `id,day,logged,broken,amount
1,Jan 1 2000,03/15/2021 14:30,Jan 1 2000,5
2,Feb 15 2001,12/01/2021 09:05,Feb 2 2000,7
3,Mar 3 2001,,Mar 3 2000,9
4,Dec 31 2001,07/04/2022 23:59,someday,11
`;

describe('Table Expert: dates inferred at load', { timeout: 60_000 }, () => {
  let dir: string;
  let expert: TableExpert;
  let world: TableExpert;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'te-dates-'));
    const file = path.join(dir, 'events.csv');
    await writeFile(file, CSV);
    expert = createTableExpertAgent({ options: parseTableExpertOptions({ datasets: [{ name: 'events', path: file }] }, { index: 0, baseDir: dir }), dataDir: dir }).expert;
    const folder = path.join(PUBLIC_DATA, 'country-json');
    world = createTableExpertAgent({ options: parseTableExpertOptions({ datasets: [{ name: 'world', path: folder }] }, { index: 0, baseDir: dir }), dataDir: path.join(dir, 'w') }).expert;
  });
  afterAll(async () => {
    expert?.close();
    world?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reads human dates and US date-times as DATE and TIMESTAMP, and describe says so', async () => {
    const d = await expert.describe({});
    const t = d.tables[0]!;
    const type = (name: string) => t.columns.find((c) => c.name === name)?.type;
    expect([type('day'), type('logged'), type('broken')]).toEqual(['DATE', 'TIMESTAMP', 'VARCHAR']);
    expect(t.inferred).toEqual([
      { column: 'day', as: 'DATE', format: '%b %d %Y' },
      { column: 'logged', as: 'TIMESTAMP', format: '%m/%d/%Y %H:%M' },
    ]);
    expect(d.markdown).toContain('- day: read as DATE from text in the format `%b %d %Y`');
    const rows = await expert.query({ sql: 'SELECT day, logged FROM events ORDER BY id' });
    expect(rows.result.rows).toEqual([
      ['2000-01-01', '2021-03-15 14:30:00'],
      ['2001-02-15', '2021-12-01 09:05:00'],
      ['2001-03-03', null],
      ['2001-12-31', '2022-07-04 23:59:00'],
    ]);
  });

  it('answers a question that filters on an inferred date', async () => {
    const asked = await expert.ask({ question: 'total amount by year' });
    expect(asked.kind === 'clarify' ? asked.choices.map((c) => c.id) : asked.kind).toEqual(['events.day', 'events.logged']);
    const out = await expert.ask({ question: 'total amount by year', resolutions: { date: 'events.day' } });
    expect(out.kind, JSON.stringify(out).slice(0, 300)).toBe('answer');
    if (out.kind !== 'answer') return;
    expect(out.result.rows).toEqual([
      [2000, 5],
      [2001, 27],
    ]);
  });

  it('filters and groups a column of whole-number years as years (a public table, years BC included)', async () => {
    const facts = JSON.parse(readFileSync(path.join(PUBLIC_DATA, 'country-json/country-by-independence-date.json'), 'utf8')) as Array<{ country: string; independence: number | null }>;
    const d = await world.describe({});
    expect(d.tables.find((t) => t.name === 'country_by_independence_date')!.inferred).toEqual([{ column: 'independence', as: 'year' }]);
    const in1960 = await world.ask({ question: 'how many countries were independent in 1960' });
    expect(in1960.kind === 'answer' ? in1960.result.rows : in1960).toEqual([[facts.filter((f) => f.independence === 1960).length]]);
    const byYear = await world.ask({ question: 'number of countries by independence year' });
    expect(byYear.kind).toBe('answer');
    if (byYear.kind !== 'answer') return;
    const counts = new Map<number | null, number>();
    for (const f of facts) counts.set(f.independence, (counts.get(f.independence) ?? 0) + 1);
    const expected = [...counts].sort((a, b) => (a[0] === null ? 1 : b[0] === null ? -1 : a[0] - b[0]));
    expect(byYear.result.rows).toEqual(expected.map(([y, n]) => [y, n]));
  });
});
