/**
 * The evaluation's judge and runner: a judge that passed altered results would make the figures
 * in docs/table-expert.md worthless, so every alteration an answer can suffer must be caught —
 * a changed number, a missing or extra row, a swapped pairing, another order — while harmless
 * differences (column names, extra columns, ties, float noise) pass. The runner is then checked
 * end to end over the real sample: questions it answers right turn WRONG when their gold SQL is
 * altered, and declines and clarifications are classified as such.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { goldIsOrdered, judge, type Cell } from './eval/judge.js';
import { EVAL_SET } from './eval/question-set.js';
import { openEvalSession, type EvalSession } from './eval/run-eval.js';

const t = (rows: Cell[][]) => ({ rows });
const gold = t([
  ['Books', 120.5],
  ['Home', 99],
  ['Toys', 42.25],
]);

describe('judge', () => {
  it('accepts the same rows with other column names, extra columns and float noise', () => {
    expect(
      judge(
        t([
          [1, 'Books', 120.5000000001],
          [2, 'Home', 99],
          [3, 'Toys', 42.25],
        ]),
        gold,
        true,
      ).ok,
    ).toBe(true);
    expect(
      judge(
        t([
          ['Toys', 42.25],
          ['Books', 120.5],
          ['Home', 99],
        ]),
        gold,
        false,
      ).ok,
    ).toBe(true);
    expect(
      judge(
        t([
          ['120.50', 'Books'],
          ['99', 'Home'],
          ['42.25', 'Toys'],
        ]),
        gold,
        true,
      ).ok,
    ).toBe(true);
  });
  it('catches a changed number, a missing row, an extra row and a swapped pairing', () => {
    expect(
      judge(
        t([
          ['Books', 120.5],
          ['Home', 99.02],
          ['Toys', 42.25],
        ]),
        gold,
        false,
      ).ok,
    ).toBe(false);
    expect(
      judge(
        t([
          ['Books', 120.5],
          ['Home', 99],
        ]),
        gold,
        false,
      ).ok,
    ).toBe(false);
    expect(
      judge(
        t([
          ['Books', 120.5],
          ['Home', 99],
          ['Toys', 42.25],
          ['Garden', 1],
        ]),
        gold,
        false,
      ).ok,
    ).toBe(false);
    expect(
      judge(
        t([
          ['Books', 99],
          ['Home', 120.5],
          ['Toys', 42.25],
        ]),
        gold,
        false,
      ).ok,
    ).toBe(false);
    expect(judge(t([['Books'], ['Home'], ['Toys']]), gold, false).ok).toBe(false);
  });
  it('catches another order when the gold orders its rows, and allows ties to come either way', () => {
    expect(
      judge(
        t([
          ['Home', 99],
          ['Books', 120.5],
          ['Toys', 42.25],
        ]),
        gold,
        true,
      ).ok,
    ).toBe(false);
    expect(
      judge(
        t([
          ['Home', 99],
          ['Books', 120.5],
          ['Toys', 42.25],
        ]),
        gold,
        false,
      ).ok,
    ).toBe(true);
    const tied = t([
      ['a', 5],
      ['b', 5],
      ['c', 1],
    ]);
    expect(
      judge(
        t([
          ['b', 5],
          ['a', 5],
          ['c', 1],
        ]),
        tied,
        true,
      ).ok,
    ).toBe(true);
    expect(
      judge(
        t([
          ['b', 5],
          ['c', 5],
          ['a', 1],
        ]),
        tied,
        true,
      ).ok,
    ).toBe(false);
  });
  it('a single value must be the answer, not one row among many', () => {
    expect(judge(t([[20000]]), t([[20000]]), false).ok).toBe(true);
    expect(judge(t([[20001]]), t([[20000]]), false).ok).toBe(false);
    expect(
      judge(
        t([
          ['Electronics', 10],
          ['Home', 5],
        ]),
        t([['Electronics']]),
        true,
      ).ok,
    ).toBe(false);
    expect(judge(t([[null]]), t([[0]]), false).ok).toBe(false);
  });
  it('tells an ordered gold statement from an unordered one', () => {
    expect(goldIsOrdered('SELECT a FROM t ORDER BY 1')).toBe(true);
    expect(goldIsOrdered('SELECT a, sum(b) OVER (ORDER BY a) FROM t')).toBe(false);
    expect(goldIsOrdered("SELECT 'order by' FROM t")).toBe(false);
  });
});

describe('the evaluation set', () => {
  it('holds at least 200 sample questions over two datasets, a fifth casual, a quarter held out, ids unique', () => {
    const sample = EVAL_SET.filter((q) => q.part === 'sample');
    expect(sample.length).toBeGreaterThanOrEqual(200);
    expect(new Set(sample.map((q) => q.dataset))).toEqual(new Set(['retail', 'support']));
    expect(sample.filter((q) => q.casual).length / sample.length).toBeGreaterThanOrEqual(0.19);
    expect(sample.filter((q) => q.heldOut).length / sample.length).toBeGreaterThanOrEqual(0.24);
    expect(new Set(EVAL_SET.map((q) => q.id)).size).toBe(EVAL_SET.length);
    expect(new Set(EVAL_SET.map((q) => `${q.dataset}:${q.question.toLowerCase()}:${q.previous.join('/')}`)).size).toBe(EVAL_SET.length);
  });
  it('holds at least 200 questions over at least 8 real public tables, none held out (written before tuning)', () => {
    const pub = EVAL_SET.filter((q) => q.part === 'public');
    expect(pub.length).toBeGreaterThanOrEqual(200);
    expect(pub.some((q) => q.heldOut)).toBe(false);
    const tables = new Set(pub.flatMap((q) => [...q.gold.matchAll(/\b(?:FROM|JOIN)\s+([a-z_]+)/gi)].map((m) => m[1])));
    expect(tables.size).toBeGreaterThanOrEqual(8);
  });
});

describe('runner', { timeout: 60_000 }, () => {
  let session: EvalSession;
  const byQuestion = (q: string) => EVAL_SET.find((x) => x.question === q)!;
  const picked = ['How many orders do we have in total?', 'Top 5 products by revenue', 'Orders by channel', 'Tickets by priority'].map(byQuestion);
  const ALTER: Record<string, (sql: string) => string> = {
    'How many orders do we have in total?': (s) => s.replace('count(*)', 'count(*) + 1'),
    'Top 5 products by revenue': (s) => s.replace('ORDER BY r DESC', 'ORDER BY r ASC'),
    'Orders by channel': (s) => `${s.replace('GROUP BY 1', '')} WHERE channel <> 'phone' GROUP BY 1`,
    'Tickets by priority': (s) => s.replace('count(*)', 'count(DISTINCT account_id)'),
  };
  beforeAll(async () => {
    session = await openEvalSession({ goldFor: (q) => (altered ? ALTER[q.question]!(q.gold) : q.gold) });
  });
  afterAll(() => session?.close());
  let altered = false;

  it('classifies right answers CORRECT and the same answers WRONG against altered gold results', async () => {
    altered = false;
    const right = await session.run(picked);
    expect(right.map((r) => r.verdict)).toEqual(['CORRECT', 'CORRECT', 'CORRECT', 'CORRECT']);
    altered = true;
    const wrong = await session.run(picked);
    expect(wrong.map((r) => r.verdict)).toEqual(['WRONG', 'WRONG', 'WRONG', 'WRONG']);
    altered = false;
  });

  it('classifies a decline as DECLINED and a clarification as ASKED', async () => {
    const declined = { ...picked[0]!, id: 'x-1', question: 'Why did revenue drop?' };
    const asked = { ...picked[0]!, id: 'x-2', question: 'Revenue by name' };
    const [d, a] = await session.run([declined, asked]);
    expect(d!.verdict).toBe('DECLINED');
    expect(a!.verdict).toBe('ASKED');
  });
});
