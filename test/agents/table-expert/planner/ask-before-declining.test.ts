/**
 * Ask before declining (issue 31 item 2), in process over the retail sample: a word close to
 * something in the data becomes INPUT_REQUIRED with concrete choices, a reply picking one continues
 * the question, and words close to nothing (or real English words) are still declined. Expected
 * rows come from hand-written SQL run through the guarded `query` skill and the evaluation's judge.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTableExpertAgent, parseTableExpertOptions, type TableExpert } from '../../../../src/agents/table-expert/index.js';
import type { AskOutput } from '../../../../src/agents/table-expert/skills.js';
import { goldIsOrdered, judge, type Cell } from '../eval/judge.js';

const REV = 'order_lines l JOIN orders o ON o.order_id = l.order_id';

describe('Table Expert planner: asks before declining', { timeout: 60_000 }, () => {
  let dir: string;
  let expert: TableExpert;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'te-ask-'));
    expert = createTableExpertAgent({ options: parseTableExpertOptions({}, { index: 0, baseDir: dir }), dataDir: dir }).expert;
  });
  afterAll(async () => {
    expert?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const clarify = (out: AskOutput) => {
    expect(out.kind, JSON.stringify(out).slice(0, 400)).toBe('clarify');
    if (out.kind !== 'clarify') throw new Error('not a clarification');
    return out;
  };
  async function expectAnswer(out: AskOutput, gold: string): Promise<void> {
    expect(out.kind, JSON.stringify(out).slice(0, 400)).toBe('answer');
    if (out.kind !== 'answer') return;
    const expected = await expert.query({ sql: gold });
    const verdict = judge({ rows: out.result.rows as Cell[][] }, { rows: expected.result.rows as Cell[][] }, goldIsOrdered(gold));
    expect(verdict.ok, `${verdict.reason}\n${out.sql}`).toBe(true);
  }

  it.each([
    ['revenue by categry', 'categry', 'products.category', `SELECT p.category, sum(l.amount) AS r FROM order_lines l JOIN products p USING (product_id) GROUP BY 1 ORDER BY r DESC`],
    ['How many ordres were cancelled?', 'ordres', 'orders', `SELECT count(*) FROM orders WHERE status = 'cancelled'`],
    ['total revnue in 2024', 'revnue', 'order_lines.amount', `SELECT sum(l.amount) FROM ${REV} WHERE year(o.order_date) = 2024`],
  ])('"%s": asks whether "%s" means %s, and the chosen reading is answered', async (question, term, id, gold) => {
    const asked = clarify(await expert.ask({ question }));
    expect(asked.term).toBe(term);
    expect(asked.choices.map((c) => c.id)).toContain(id);
    expect(asked.question).toMatch(new RegExp(`^By "${term}" do you mean`));
    await expectAnswer(await expert.ask({ question: asked.original, resolutions: { ...asked.resolutions, [asked.term.toLowerCase()]: id } }), gold);
  });

  it('offers every column a misspelt word is close to', async () => {
    const asked = clarify(await expert.ask({ question: 'average prcie' }));
    expect(asked.choices.map((c) => c.id).sort()).toEqual(['order_lines.unit_price', 'products.unit_price']);
    await expectAnswer(await expert.ask({ question: asked.original, resolutions: { prcie: 'products.unit_price' } }), 'SELECT avg(unit_price) FROM products');
  });

  it('asks whether a column it could not fit is meant as a grouping: "By \'category\' do you mean products.category?"', async () => {
    const asked = clarify(await expert.ask({ question: 'revenue in 2024 category' }));
    expect(asked.question).toBe('By "category" do you mean products.category, one answer per category?');
    expect(asked.choices).toEqual([{ id: 'by:products.category', label: 'one answer per products.category' }]);
    await expectAnswer(
      await expert.ask({ question: asked.original, resolutions: { category: 'by:products.category' } }),
      `SELECT p.category, sum(l.amount) AS r FROM ${REV} JOIN products p ON p.product_id = l.product_id WHERE year(o.order_date) = 2024 GROUP BY 1 ORDER BY r DESC`,
    );
  });

  it('asks about each close word in turn, carrying the earlier replies', async () => {
    const first = clarify(await expert.ask({ question: 'revnue by categry' }));
    const second = clarify(await expert.ask({ question: first.original, resolutions: { [first.term]: first.choices[0]!.id } }));
    expect(second.term).not.toBe(first.term);
    const done = await expert.ask({ question: second.original, resolutions: { [first.term]: first.choices[0]!.id, [second.term]: second.choices[0]!.id } });
    await expectAnswer(done, `SELECT p.category, sum(l.amount) AS r FROM order_lines l JOIN products p USING (product_id) GROUP BY 1 ORDER BY r DESC`);
  });

  it.each([
    // English words are meant as themselves, not as a column they resemble
    'How many orders use the phone?',
    'revenue by trade',
    // close to nothing in the data
    'revenue by zqxwv',
    // one word close to a column, another close to nothing: asking would not rescue the question
    'revnue by zqxwv',
  ])('still declines "%s"', async (question) => {
    const out = await expert.ask({ question });
    expect(out.kind, JSON.stringify(out).slice(0, 400)).toBe('declined');
  });
});
