/**
 * Counting nouns and answer shape (issue 31 item 3), in process: "how many days …" counts the days
 * that have (matching) rows — a daily table's rows, an orders table's distinct order days — and
 * never lists them; an answer whose shape does not fit the question (many rows for one number, one
 * bare figure for "by X") is caught. Expected figures are computed in JS from the generated rows.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TableProfile } from '../../../../src/agents/table-expert/catalog/profile.js';
import { createTableExpertAgent, parseTableExpertOptions, type TableExpert } from '../../../../src/agents/table-expert/index.js';
import { asksForOneNumber, shapeMismatch } from '../../../../src/agents/table-expert/planner/answer-shape.js';
import { buildVocabulary } from '../../../../src/agents/table-expert/planner/vocabulary.js';
import type { AskOutput } from '../../../../src/agents/table-expert/skills.js';
import { sample } from '../retail-facts.js';

interface Day {
  date: string;
  weather: string;
  wind: number;
}

/** Four years of days, weather drawn from a seeded generator (mulberry32). */
function days(): Day[] {
  let a = 2014;
  const rand = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const kinds = ['rain', 'sun', 'fog', 'drizzle', 'snow'];
  const out: Day[] = [];
  for (let t = Date.UTC(2012, 0, 1); t < Date.UTC(2016, 0, 1); t += 86_400_000) {
    out.push({ date: new Date(t).toISOString().slice(0, 10), weather: kinds[Math.floor(rand() * kinds.length)]!, wind: Math.round(rand() * 80) / 10 });
  }
  return out;
}

const one = (out: AskOutput): unknown => {
  expect(out.kind, JSON.stringify(out).slice(0, 400)).toBe('answer');
  if (out.kind !== 'answer') return undefined;
  expect(out.result.rows, out.sql).toHaveLength(1);
  return out.result.rows[0];
};

describe('Table Expert planner: counting nouns and answer shape', { timeout: 60_000 }, () => {
  const weather = days();
  let dir: string;
  let daily: TableExpert;
  let retail: TableExpert;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'te-count-'));
    const file = path.join(dir, 'weather.csv');
    await writeFile(file, `date,wind,weather\n${weather.map((d) => `${d.date},${d.wind},${d.weather}`).join('\n')}\n`);
    daily = createTableExpertAgent({ options: parseTableExpertOptions({ datasets: [{ name: 'weather', path: file, description: 'Weather: one row per day' }] }, { index: 0, baseDir: dir }), dataDir: dir }).expert;
    retail = createTableExpertAgent({ options: parseTableExpertOptions({}, { index: 0, baseDir: dir }), dataDir: path.join(dir, 'retail') }).expert;
  });
  afterAll(async () => {
    daily?.close();
    retail?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const count = (pred: (d: Day) => boolean) => weather.filter(pred).length;

  it.each([
    ['How many days had rain in 2014?', (d: Day) => d.weather === 'rain' && d.date.startsWith('2014')],
    ['how many rainy days in 2014', (d: Day) => d.weather === 'rain' && d.date.startsWith('2014')],
    ['How many sunny days were there in 2013?', (d: Day) => d.weather === 'sun' && d.date.startsWith('2013')],
    ['how many foggy days', (d: Day) => d.weather === 'fog'],
  ])('"%s" is one number: the days, not a row per day', async (question, pred) => {
    expect(one(await daily.ask({ question }))).toEqual([count(pred)]);
  });

  it('"average wind on snowy days": the days say which rows, they are not a grouping', async () => {
    const snowy = weather.filter((d) => d.weather === 'snow');
    const [avg] = one(await daily.ask({ question: 'average wind on snowy days' })) as number[];
    expect(avg).toBeCloseTo(snowy.reduce((s, d) => s + d.wind, 0) / snowy.length, 9);
  });

  it('"number of days with snow by year": a count of days per year', async () => {
    const out = await daily.ask({ question: 'number of days with snow by year' });
    expect(out.kind).toBe('answer');
    if (out.kind !== 'answer') return;
    expect(out.result.rows).toEqual([2012, 2013, 2014, 2015].map((y) => [y, count((d) => d.weather === 'snow' && d.date.startsWith(String(y)))]));
  });

  it('"how many days had orders in 2024" counts distinct order days, not orders', async () => {
    const expected = new Set(sample.orders.filter((o) => o.order_date.startsWith('2024')).map((o) => o.order_date)).size;
    expect(one(await retail.ask({ question: 'How many days had orders in 2024?' }))).toEqual([expected]);
    expect(expected).toBeLessThan(sample.orders.filter((o) => o.order_date.startsWith('2024')).length);
  });

  describe('the shape check', () => {
    const profile: TableProfile = {
      name: 'orders',
      dataset: 'shop',
      usecase: 'default',
      rowCount: 3,
      key: ['order_id'],
      columns: [
        { name: 'order_id', type: 'INTEGER', nullCount: 0, distinctCount: 3 },
        { name: 'channel', type: 'VARCHAR', nullCount: 0, distinctCount: 2, values: ['online', 'store'] },
        { name: 'amount', type: 'DOUBLE', nullCount: 0, distinctCount: 3 },
      ],
    } as unknown as TableProfile;
    const vocab = buildVocabulary([profile]);
    const result = (rowCount: number, columns: number) => ({ rowCount, columns: Array.from({ length: columns }, () => ({})) });

    it.each(['How many orders were cancelled?', 'number of orders in 2024', "what's the total amount", 'How much did we sell?'])('"%s" asks for one number', (q) => {
      expect(asksForOneNumber(q)).toBe(true);
      expect(shapeMismatch(q, result(68, 2), vocab)).toMatch(/asks for one number, but the query I could write returns 68 rows/);
      expect(shapeMismatch(q, result(1, 1), vocab)).toBeUndefined();
    });

    it.each(['How many orders by channel?', 'how many orders per month', 'how many orders in each channel', 'How many orders online vs in store?', 'Which channel has the most orders?'])('"%s" asks for several', (q) => {
      expect(asksForOneNumber(q)).toBe(false);
      expect(shapeMismatch(q, result(2, 2), vocab)).toBeUndefined();
    });

    it('"by <column>" answered with one bare figure is caught; "by <value>" and "per <x>" are not groupings', () => {
      expect(shapeMismatch('Total amount by channel', result(1, 1), vocab)).toMatch(/asks for figures by channel/);
      expect(shapeMismatch('Total amount by channel', result(1, 2), vocab)).toBeUndefined();
      expect(shapeMismatch('How many orders were placed by online', result(1, 1), vocab)).toBeUndefined();
      expect(shapeMismatch('average amount per order', result(1, 1), vocab)).toBeUndefined();
    });
  });
});
