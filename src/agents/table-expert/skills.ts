/**
 * The Table Expert's skills as plain async functions with typed inputs and outputs: `describe`,
 * `search`, `fetch`, `query` and `ask`. The A2A agent (agent.ts) is one face over them; the MCP
 * tools (`search`, `fetch`, `query_table_expert`) will be another, calling the same functions with
 * a `scope` that limits the usecases a token may see. Nothing here knows about A2A.
 */
import type { ModelUsage } from './llm/chat-client.js';
import { toJsonObject, toJsonValue } from '../../protocol/a2a/json.js';
import type { JsonObject } from '../../protocol/a2a/types.js';
import { chartSpec } from './answer/chart.js';
import { markdownTable, summarize } from './answer/summary.js';
import { Catalog, type Relation } from './catalog/catalog.js';
import { formatId, parseId } from './catalog/ids.js';
import type { TableProfile } from './catalog/profile.js';
import { SavedResults } from './catalog/saved-results.js';
import { search as searchCatalog, type SearchHit } from './catalog/search.js';
import type { QueryResult, Scope, TableEngine } from './engine/duckdb-engine.js';
import { LlmError } from './llm/chat-client.js';
import type { Context } from '../../observability/tracing/index.js';
import { writeAndRunSql, type Attempt } from './llm/sql-writer.js';
import type { TableExpertOptions } from './options.js';
import { questionKey, resolveSemantic, SemanticError, type ResolvedSemantic } from './planner/semantic.js';
import { buildVocabulary, hints, planQuestion, type Choice, type PlannerMemory, type Vocabulary } from './planner/index.js';
import { shapeMismatch } from './planner/answer-shape.js';
import { quoteIdent } from './sql/sql-text.js';

export type { SearchHit } from './catalog/search.js';
export type { TableProfile } from './catalog/profile.js';
export type { QueryResult, Scope } from './engine/duckdb-engine.js';
export { QueryError, QueryRejectedError } from './engine/errors.js';

export class TableExpertError extends Error {
  override readonly name = 'TableExpertError';
  constructor(
    readonly code: 'not_found' | 'invalid_input' | 'unavailable',
    message: string,
  ) {
    super(message);
  }
}

export interface SkillContext {
  /** the usecases the caller may see; all when absent */
  scope?: Scope;
  signal?: AbortSignal;
  /** progress notes for long steps (opening the data, each LLM attempt) */
  onProgress?: (note: string) => void;
  /** each model call's token usage (the agent reports it: ctx.reportUsage) */
  onUsage?: (usage: ModelUsage) => void;
  /** with tracing on, the run's span: the model calls hang under it */
  trace?: Context | undefined;
}

export interface DescribeInput {
  table?: string;
}
export interface DescribeOutput {
  tables: TableProfile[];
  relations: Relation[];
  markdown: string;
}

export interface SearchInput {
  query: string;
  limit?: number;
}
export interface SearchOutput {
  query: string;
  results: SearchHit[];
}

export interface FetchInput {
  id: string;
}
export interface FetchOutput {
  id: string;
  kind: 'table' | 'column' | 'row' | 'result';
  title: string;
  /** markdown */
  text: string;
  data: JsonObject;
}

export interface QueryInput {
  sql: string;
  maxRows?: number;
}
export interface QueryOutput {
  sql: string;
  result: QueryResult;
  resultId: string;
  markdown: string;
  chart?: JsonObject;
}

/** What a conversation remembers of its last answered question. */
export interface AskMemory {
  question: string;
  sql: string;
  planner?: PlannerMemory;
}

export interface AskInput {
  question: string;
  previous?: AskMemory;
  /** answers to an earlier clarification: term → choice id */
  resolutions?: Readonly<Record<string, string>>;
  /** `planner` or `llm` forces one path; `auto` uses the model when one is configured */
  mode?: 'auto' | 'planner' | 'llm';
}

export type AskOutput =
  | {
      kind: 'answer';
      question: string;
      sql: string;
      result: QueryResult;
      resultId: string;
      summary: string;
      chart?: JsonObject;
      interpretation?: string;
      source: 'planner' | 'llm';
      /** answered by a verified question of the semantic layer */
      verified?: boolean;
      attempts?: Attempt[];
      memory: AskMemory;
    }
  | { kind: 'clarify'; question: string; term: string; choices: Choice[]; original: string; resolutions: Record<string, string> }
  | { kind: 'declined'; reason: string; hints: string[]; attempts?: Attempt[] };

export interface TableExpert {
  describe(input: DescribeInput, ctx?: SkillContext): Promise<DescribeOutput>;
  search(input: SearchInput, ctx?: SkillContext): Promise<SearchOutput>;
  fetch(input: FetchInput, ctx?: SkillContext): Promise<FetchOutput>;
  query(input: QueryInput, ctx?: SkillContext): Promise<QueryOutput>;
  ask(input: AskInput, ctx?: SkillContext): Promise<AskOutput>;
  /** opens the data now rather than on first use */
  warmUp(): Promise<void>;
  close(): void;
}

const PREVIEW_ROWS = 10;

/**
 * The skills over datasets that open on first use. `openEngine` resolves the datasets (and writes
 * the sample, when it is used) and opens DuckDB; it runs once.
 */
export function createTableExpert(options: TableExpertOptions, openEngine: () => Promise<TableEngine>): TableExpert {
  let enginePromise: Promise<TableEngine> | undefined;
  let closed = false;
  const saved = new SavedResults();
  const vocabCache = new Map<string, { stamp: string; vocab: Vocabulary }>();

  const engine = (): Promise<TableEngine> => {
    if (closed) return Promise.reject(new TableExpertError('unavailable', 'the Table Expert is shut down'));
    enginePromise ??= openEngine().catch((e: unknown) => {
      enginePromise = undefined;
      throw new TableExpertError('unavailable', `the datasets could not be opened: ${(e as Error).message}`);
    });
    return enginePromise;
  };
  /** `fresh`: look at the files now rather than within the last two seconds (describe does). */
  const open = async (ctx: SkillContext, fresh = false) => {
    const e = await engine();
    const catalog = (catalogs.get(e) ?? catalogs.set(e, new Catalog(e)).get(e))!;
    return { e, catalog, profiles: await catalog.profiles(ctx.scope, undefined, ctx.signal, fresh) };
  };
  const catalogs = new WeakMap<TableEngine, Catalog>();
  const vocabulary = (profiles: TableProfile[], scope?: Scope): Vocabulary => {
    const key = (scope?.usecases ?? ['*']).join(',');
    const stamp = profiles.map((p) => `${p.name}@${p.profiledAt}`).join('|');
    const hit = vocabCache.get(key);
    if (hit?.stamp === stamp) return hit.vocab;
    const sem = semanticOf(profiles);
    const vocab = buildVocabulary(profiles, sem.synonyms, { units: sem.units, values: sem.values, timeColumns: sem.timeColumns, measures: sem.measures });
    vocabCache.set(key, { stamp, vocab });
    return vocab;
  };
  /** The semantic layer checked against the tables in scope; a name matching nothing is a configuration error. */
  const semanticOf = (profiles: TableProfile[]): ResolvedSemantic => {
    const specs = options.datasets.flatMap((d, i) => (d.semantic && profiles.some((p) => p.dataset === d.name) ? [{ where: `options.datasets[${i}].semantic`, dataset: d.name, spec: d.semantic }] : []));
    const present = Object.fromEntries(
      Object.entries(options.synonyms).filter(([, t]) => profiles.length > 0 && (options.datasets.length <= 1 || profiles.some((p) => t.toLowerCase().startsWith(`${p.name}.`) || t.toLowerCase() === p.name))),
    );
    try {
      return resolveSemantic(specs, present, profiles);
    } catch (e) {
      if (e instanceof SemanticError) throw new TableExpertError('unavailable', `configuration error: ${e.message}`);
      throw e;
    }
  };
  const usecasesOf = (sqlTables: ReadonlyArray<{ usecase: string }>) => [...new Set(sqlTables.map((p) => p.usecase))].sort();

  const runQuery = async (sql: string, ctx: SkillContext, maxRows: number, question?: string): Promise<QueryOutput> => {
    const e = await engine();
    await e.refresh();
    const result = await e.query(sql, { maxRows, ...(ctx.scope ? { scope: ctx.scope } : {}), ...(ctx.signal ? { signal: ctx.signal } : {}) });
    const tables = e.listTables(ctx.scope);
    const used = tables.filter((p) => new RegExp(`\\b${p.name}\\b`, 'i').test(result.sql));
    const item = saved.save(result.sql, usecasesOf(used.length ? used : tables), question);
    const chart = chartSpec(result);
    return { sql: result.sql, result, resultId: formatId({ kind: 'result', hash: item.hash }), markdown: summarize(result), ...(chart ? { chart } : {}) };
  };

  return {
    async describe(input, ctx = {}) {
      const { profiles } = await open(ctx, true);
      const tables = input.table ? profiles.filter((p) => p.name === input.table!.toLowerCase()) : profiles;
      if (input.table && tables.length === 0) throw new TableExpertError('not_found', `there is no table named "${input.table}"`);
      const relations = Catalog.relations(profiles).filter((r) => tables.some((t) => t.name === r.from.table || t.name === r.to.table));
      return { tables, relations, markdown: describeMarkdown(tables, relations) };
    },

    async search(input, ctx = {}) {
      const { e, profiles } = await open(ctx);
      const limit = Math.min(Math.max(input.limit ?? 10, 1), 100);
      const results = await searchCatalog(e, profiles, saved, input.query, { limit, ...(ctx.scope ? { scope: ctx.scope } : {}), ...(ctx.signal ? { signal: ctx.signal } : {}) });
      return { query: input.query, results };
    },

    async fetch(input, ctx = {}): Promise<FetchOutput> {
      const id = parseId(input.id);
      const notFound = () => new TableExpertError('not_found', `nothing has the id "${input.id}"`);
      if (!id) throw notFound();
      const { e, profiles } = await open(ctx);
      if (id.kind === 'result') {
        const item = saved.get(id.hash);
        if (!item?.usecases.every((u) => profiles.some((p) => p.usecase === u))) throw notFound();
        const out = await runQuery(item.sql, ctx, e.limits.maxRows, item.question);
        return {
          id: input.id,
          kind: 'result',
          title: item.question ?? 'Saved query result',
          text: `${item.question ? `**${item.question}**\n\n` : ''}\`\`\`sql\n${item.sql}\n\`\`\`\n\n${out.markdown}`,
          data: { sql: item.sql, columns: toJsonValue(out.result.columns), rows: out.result.rows, rowCount: out.result.rowCount, truncated: out.result.truncated },
        };
      }
      const p = profiles.find((x) => x.name === id.table);
      if (!p) throw notFound();
      if (id.kind === 'table') {
        const preview = await e.internal(`SELECT * FROM ${quoteIdent(p.name)} LIMIT ${PREVIEW_ROWS}`, { maxRows: PREVIEW_ROWS, ...(ctx.signal ? { signal: ctx.signal } : {}) });
        return {
          id: input.id,
          kind: 'table',
          title: p.name,
          text: `${describeMarkdown([p], [])}\n\nFirst rows:\n\n${markdownTable(preview)}`,
          data: { table: toJsonObject(p), preview: { columns: toJsonValue(preview.columns), rows: preview.rows } },
        };
      }
      if (id.kind === 'column') {
        const c = p.columns.find((x) => x.name === id.column);
        if (!c) throw notFound();
        const top = (c.topValues ?? []).map((t) => `${String(t.value)} (${t.count})`).join(', ');
        const text = [
          `**${p.name}.${c.name}** (${c.type})`,
          `- nulls: ${c.nullCount} of ${p.rowCount}`,
          `- distinct values: ${p.distinctExact ? '' : '~'}${c.distinctCount}`,
          ...(c.min !== undefined ? [`- min: ${String(c.min)}, max: ${String(c.max)}`] : []),
          ...(top ? [`- most frequent: ${top}`] : []),
        ].join('\n');
        return { id: input.id, kind: 'column', title: `${p.name}.${c.name}`, text, data: { table: p.name, rowCount: p.rowCount, column: toJsonObject(c) } };
      }
      const where = 'hash' in id ? `md5(CAST(to_json(x) AS VARCHAR)) = $1` : `CAST(x.${quoteIdent(id.key)} AS VARCHAR) = $1`;
      if (!('hash' in id) && !p.columns.some((c) => c.name === id.key)) throw notFound();
      const r = await e.internal(`SELECT * FROM ${quoteIdent(p.name)} AS x WHERE ${where} LIMIT 1`, { params: ['hash' in id ? id.hash : id.value], maxRows: 1, ...(ctx.signal ? { signal: ctx.signal } : {}) });
      if (r.rows.length === 0) throw notFound();
      const row = Object.fromEntries(r.columns.map((c, i) => [c.name, r.rows[0]![i]!])) as JsonObject;
      return { id: input.id, kind: 'row', title: `${p.name} row`, text: markdownTable(r), data: { table: p.name, row } };
    },

    async query(input, ctx = {}) {
      const e = await engine();
      return runQuery(input.sql, ctx, Math.min(input.maxRows ?? e.limits.maxRows, e.limits.maxRows));
    },

    async ask(input, ctx = {}) {
      const question = input.question.trim();
      if (!question) throw new TableExpertError('invalid_input', 'the question is empty');
      const { e, profiles } = await open(ctx);
      const maxRows = e.limits.maxRows;
      const sem = semanticOf(profiles);
      // a verified question is answered with its owners' SQL, before any planning or model
      const verified = sem.verified.find((v) => v.key === questionKey(question));
      if (verified) {
        const out = await runQuery(verified.sql, ctx, maxRows, question);
        const reading = `verified question "${verified.question}" (SQL checked by the data's owners)`;
        return {
          kind: 'answer',
          question,
          sql: out.sql,
          result: out.result,
          resultId: out.resultId,
          summary: summarize(out.result, reading),
          ...(out.chart ? { chart: out.chart } : {}),
          interpretation: reading,
          source: 'planner',
          verified: true,
          memory: { question, sql: out.sql },
        };
      }
      const useLlm = options.llm && input.mode !== 'planner';
      if (input.mode === 'llm' && !options.llm) throw new TableExpertError('invalid_input', 'no model is configured (options.llm)');
      if (useLlm) {
        try {
          const vocab = vocabulary(profiles, ctx.scope);
          const a = await writeAndRunSql({
            llm: options.llm!,
            engine: e,
            profiles,
            relations: vocab.relations,
            semantic: sem,
            question,
            history: input.previous ? [{ question: input.previous.question, sql: input.previous.sql }] : [],
            maxRows,
            ...(ctx.scope ? { scope: ctx.scope } : {}),
            ...(ctx.signal ? { signal: ctx.signal } : {}),
            ...(ctx.onUsage ? { onUsage: ctx.onUsage } : {}),
            trace: ctx.trace,
            onAttempt: (at) => ctx.onProgress?.(at.error ? `The model's SQL did not run (${at.error}); asking it to repair.` : 'The model wrote SQL; it ran.'),
            ...(input.resolutions ? { clarifications: input.resolutions } : {}),
          });
          if (a.kind === 'ask') {
            // the reply is the chosen reading itself: its id and its label are the same text
            return { kind: 'clarify', question: a.question, term: a.question, choices: a.choices.map((c) => ({ id: c, label: c })), original: question, resolutions: { ...(input.resolutions ?? {}) } };
          }
          if (a.kind === 'answer') {
            const misfit = shapeMismatch(question, a.result, vocab);
            if (misfit) return { kind: 'declined', reason: `I will not give this answer: ${misfit}.`, hints: [], attempts: a.attempts };
            const item = saved.save(a.sql, usecasesOf(profiles), question);
            const chart = chartSpec(a.result);
            // the same "Read as" line as the planner's: the model's own reading, or a pointer to its SQL
            const reading = a.reading ?? "the model's SQL below (it gave no reading)";
            const summary = a.modelSummary ? `Read as: ${reading}.\n\n${a.modelSummary}\n\n${summarize(a.result)}` : summarize(a.result, reading);
            return {
              kind: 'answer',
              question,
              sql: a.sql,
              result: a.result,
              resultId: formatId({ kind: 'result', hash: item.hash }),
              summary,
              ...(chart ? { chart } : {}),
              interpretation: reading,
              source: 'llm',
              attempts: a.attempts,
              memory: { question, sql: a.sql },
            };
          }
          if (a.kind === 'no_sql') return { kind: 'declined', reason: a.text || 'The model did not write a query for this question.', hints: [], attempts: a.attempts };
          return { kind: 'declined', reason: a.reason, hints: [], attempts: a.attempts };
        } catch (err) {
          if (!(err instanceof LlmError) || input.mode === 'llm') throw err;
          ctx.onProgress?.(`The model is unavailable (${err.message}); using the built-in planner.`);
        }
      }
      const vocab = vocabulary(profiles, ctx.scope);
      const planned = planQuestion(question, vocab, { maxRows, ...(input.previous?.planner ? { previous: input.previous.planner } : {}), ...(input.resolutions ? { resolutions: input.resolutions } : {}) });
      const o = planned.outcome;
      if (o.kind === 'declined') return { kind: 'declined', reason: o.reason, hints: o.hints };
      if (o.kind === 'ambiguous') return { kind: 'clarify', question: o.question, term: o.term, choices: o.choices, original: question, resolutions: { ...(input.resolutions ?? {}) } };
      const out = await runQuery(o.sql, ctx, maxRows, question);
      const misfit = shapeMismatch(question, out.result, vocab);
      if (misfit) return { kind: 'declined', reason: `I will not give this answer: ${misfit}.`, hints: hints(vocab) };
      const summary = summarize(out.result, o.interpretation);
      return {
        kind: 'answer',
        question,
        sql: out.sql,
        result: out.result,
        resultId: out.resultId,
        summary,
        ...(out.chart ? { chart: out.chart } : {}),
        interpretation: o.interpretation,
        source: 'planner',
        memory: { question: planned.memory?.question ?? question, sql: out.sql, ...(planned.memory ? { planner: planned.memory } : {}) },
      };
    },

    async warmUp() {
      await open({});
    },

    close() {
      closed = true;
      void enginePromise?.then((e) => e.close()).catch(() => {});
    },
  };
}

function describeMarkdown(tables: readonly TableProfile[], relations: readonly Relation[]): string {
  const out: string[] = [];
  for (const t of tables) {
    out.push(`### ${t.name}`, `${t.rowCount.toLocaleString('en-US')} rows · dataset ${t.dataset} · usecase ${t.usecase}${t.description ? ` · ${t.description}` : ''}`, '');
    for (const i of t.inferred ?? []) {
      out.push(i.note ? `- ${i.column}: ${i.note}` : i.as === 'year' ? `- ${i.column}: whole numbers read as years` : `- ${i.column}: read as ${i.as} from text in the format \`${i.format}\``);
    }
    if (t.inferred?.length) out.push('');
    out.push('| column | type | nulls | distinct | min | max | top values |', '| --- | --- | --- | --- | --- | --- | --- |');
    for (const c of t.columns) {
      const top = (c.topValues ?? [])
        .slice(0, 3)
        .map((v) => `${String(v.value)} (${v.count})`)
        .join(', ');
      const key = t.key?.includes(c.name) ? ' 🔑' : '';
      out.push(`| ${c.name}${key} | ${c.type} | ${c.nullCount} | ${t.distinctExact ? '' : '~'}${c.distinctCount} | ${c.min ?? ''} | ${c.max ?? ''} | ${top} |`);
    }
    out.push('');
  }
  if (relations.length) out.push('Relations:', ...relations.map((r) => `- ${r.from.table}.${r.from.column} → ${r.to.table}.${r.to.column}`));
  return out.join('\n').trim();
}
