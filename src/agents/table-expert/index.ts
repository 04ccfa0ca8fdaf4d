/**
 * The Table Expert as an A2A agent: a data agent that answers questions over tables. One message
 * runs one skill (describe, search, fetch, query, ask; see a2a/request.ts for how a message names
 * it). An ambiguous question pauses the task in INPUT_REQUIRED with the choices; the reply to that
 * task resumes it. A new task in the same context refines the context's last question.
 *
 * The datasets open on the first message, not at server start: a server whose clients never ask
 * the Table Expert anything never loads DuckDB or writes the sample.
 */
import type { ModelUsage } from './llm/chat-client.js';
import type { AgentConfig } from '../../config/index.js';
import { toJsonValue } from '../../protocol/a2a/json.js';
import type { JsonObject, Message, Part, Task } from '../../protocol/a2a/types.js';
import { defineAgent, type AgentContext, type AgentDefinition } from '../sdk/agent.js';
import { answerParts, clarifyParts, declinedParts, describeParts, errorParts, fetchParts, queryParts, searchParts } from './a2a/parts.js';
import { parseRequest } from './a2a/request.js';
import { QueryError, QueryRejectedError } from './engine/errors.js';
import type { TableEngine } from './engine/duckdb-engine.js';
import { LlmError } from './llm/chat-client.js';
import { parseTableExpertOptions, type DatasetSpec, type TableExpertOptions } from './options.js';
import { ensureSampleDataset } from './sample/write-sample.js';
import { TABLE_EXPERT_SKILL_HINTS, tableExpertMcp } from './mcp/index.js';
import { createTableExpert, TableExpertError, type AskMemory, type AskOutput, type TableExpert } from './skills.js';

export { createTableExpert, type TableExpert } from './skills.js';
export { parseTableExpertOptions } from './options.js';

export const SAMPLE_DATASET: Omit<DatasetSpec, 'source'> = { name: 'retail', usecase: 'sample', description: 'Sample retail shop, 2023–2024 (generated)' };

/** Contexts remembered for follow-up questions, per process; the artifact metadata carries the same. */
const CONTEXTS_REMEMBERED = 1000;

export interface TableExpertAgentOptions {
  options: TableExpertOptions;
  /** the server's data dir; the sample lives in `<dataDir>/table-expert/sample/` */
  dataDir: string;
}

export type TableExpertAgent = AgentDefinition & { expert: TableExpert };

/** Resolves `agents[index]` of the config into the agent; throws ConfigError for bad options. */
export function tableExpertFromConfig(agent: AgentConfig, where: { index: number; baseDir: string; dataDir: string }): TableExpertAgent {
  const options = parseTableExpertOptions(agent.options, { index: where.index, baseDir: where.baseDir });
  return createTableExpertAgent({ options, dataDir: where.dataDir });
}

export function createTableExpertAgent(opts: TableExpertAgentOptions): TableExpertAgent {
  const { options } = opts;
  const expert = createTableExpert(options, async () => {
    const datasets = [...options.datasets];
    if (options.sample) datasets.push({ ...SAMPLE_DATASET, source: { kind: 'files', path: await ensureSampleDataset(opts.dataDir) } });
    const { TableEngine } = await import('./engine/duckdb-engine.js');
    return TableEngine.open(datasets, options.limits) as Promise<TableEngine>;
  });
  const memory = new Map<string, AskMemory>();
  // Keyed by conversation (owner + context): another caller's contextId is not this conversation.
  const remember = (conversation: string, m: AskMemory) => {
    memory.delete(conversation);
    memory.set(conversation, m);
    if (memory.size > CONTEXTS_REMEMBERED) memory.delete(memory.keys().next().value!);
  };

  const def = defineAgent({
    card: {
      name: 'Table Expert',
      description:
        'Answers questions over tables (CSV, Parquet, JSON, SQLite, PostgreSQL) with SQL it shows you: describe the data, search it, fetch any item, run a read-only query, or ask in plain English. Works without a language model; uses one when configured.',
      version: '1.0.0',
      capabilities: { streaming: true, pushNotifications: true },
      defaultInputModes: ['text/plain', 'application/json'],
      defaultOutputModes: ['text/markdown', 'application/json', 'application/sql', 'application/vnd.vegalite.v5+json', 'text/plain'],
      skills: [
        {
          id: 'ask',
          name: 'Ask',
          description: 'A question in plain English → the SQL used, the result (columns and rows), a short summary and a chart when one fits. Follow-ups in the same context refine the last question.',
          tags: ['data', 'sql', 'analytics'],
          examples: ['Top 5 products by revenue', 'Number of orders per month in 2024', 'Which country has the most customers?'],
        },
        {
          id: 'describe',
          name: 'Describe',
          description: 'Tables, columns, types, row counts and column profiles (nulls, distinct counts, min/max, top values).',
          tags: ['data', 'schema'],
          examples: ['/describe', '{"skill":"describe","table":"orders"}'],
        },
        {
          id: 'search',
          name: 'Search',
          description: 'Keyword search over table names, column names and row values; every hit has a stable id for fetch.',
          tags: ['data', 'search'],
          examples: ['/search Berlin', '{"skill":"search","query":"headphones"}'],
        },
        {
          id: 'fetch',
          name: 'Fetch',
          description: 'Opens an id returned by search or query: a table preview, a column profile, a row, or a saved result.',
          tags: ['data'],
          examples: ['/fetch table:orders', '{"skill":"fetch","id":"row:orders:order_id=42"}'],
        },
        {
          id: 'query',
          name: 'Query',
          description: 'Runs one read-only SELECT with time, row and memory limits; anything else is rejected with the reason.',
          tags: ['data', 'sql'],
          examples: ['SELECT status, count(*) FROM orders GROUP BY 1', '{"skill":"query","sql":"SELECT 1"}'],
        },
      ],
    },
    async execute(ctx) {
      await run(ctx, expert, memory, remember);
    },
    // The skill's configured scopes are checked before the task starts (src/core/authz); a message
    // naming no readable skill needs every skill's scopes.
    skillOf: (message) => {
      const parsed = parseRequest(message);
      return parsed.ok ? parsed.request.skill : undefined;
    },
    toolAnnotations: () => TABLE_EXPERT_SKILL_HINTS,
    // search, fetch, query_table_expert and the item pages; their calls run as tasks of this agent.
    mcp: tableExpertMcp(expert),
  });
  return Object.assign(def, { expert });
}

async function run(ctx: AgentContext, expert: TableExpert, memory: Map<string, AskMemory>, remember: (c: string, m: AskMemory) => void): Promise<void> {
  const clarify = pendingClarification(ctx.task);
  // A caller bound to a usecase (src/core/authz) sees only that usecase's datasets.
  const skillCtx = {
    signal: ctx.signal,
    trace: ctx.trace,
    onProgress: (note: string) => ctx.working(note),
    onUsage: (u: ModelUsage) => ctx.reportUsage(u),
    ...(ctx.usecases ? { scope: { usecases: ctx.usecases } } : {}),
  };
  try {
    if (clarify) {
      const choice = chosen(ctx.message, clarify);
      if (choice) {
        ctx.working(`Using ${choice}.`);
        const out = await expert.ask({ question: clarify.original, resolutions: { ...clarify.resolutions, [clarify.term.toLowerCase()]: choice }, ...previousOf(ctx, memory) }, skillCtx);
        return answer(ctx, out, remember);
      }
    }
    const parsed = parseRequest(ctx.message);
    if (!parsed.ok) return status(ctx, 'TASK_STATE_REJECTED', errorParts('invalid_request', parsed.reason));
    const req = parsed.request;
    switch (req.skill) {
      case 'describe':
        ctx.working('Profiling the tables…');
        ctx.artifact(describeParts(await expert.describe(req.table ? { table: req.table } : {}, skillCtx)), { name: 'describe' });
        return ctx.complete();
      case 'search':
        ctx.artifact(searchParts(await expert.search({ query: req.query, ...(req.limit ? { limit: req.limit } : {}) }, skillCtx)), { name: 'search' });
        return ctx.complete();
      case 'fetch':
        ctx.artifact(fetchParts(await expert.fetch({ id: req.id }, skillCtx)), { name: 'fetch' });
        return ctx.complete();
      case 'query': {
        ctx.working('Running the query…');
        const out = await expert.query({ sql: req.sql, ...(req.maxRows ? { maxRows: req.maxRows } : {}) }, skillCtx);
        ctx.artifact(queryParts(out), { name: 'result', metadata: { skill: 'query', resultId: out.resultId } });
        return ctx.complete();
      }
      case 'ask': {
        ctx.working('Planning the query…');
        const out = await expert.ask({ question: req.question, ...(req.mode ? { mode: req.mode } : {}), ...previousOf(ctx, memory) }, skillCtx);
        return answer(ctx, out, remember);
      }
    }
  } catch (e) {
    if (ctx.signal.aborted) return;
    if (e instanceof QueryRejectedError) return status(ctx, 'TASK_STATE_REJECTED', errorParts(`query_rejected.${e.code}`, `Query rejected: ${e.reason}.`));
    if (e instanceof QueryError) return status(ctx, 'TASK_STATE_FAILED', errorParts(`query_${e.code}`, `The query failed: ${e.message}.`));
    if (e instanceof TableExpertError) return status(ctx, e.code === 'invalid_input' ? 'TASK_STATE_REJECTED' : 'TASK_STATE_FAILED', errorParts(e.code, e.message));
    if (e instanceof LlmError) return status(ctx, 'TASK_STATE_FAILED', errorParts('model_unavailable', `The model could not be used: ${e.message}.`));
    throw e;
  }
}

function answer(ctx: AgentContext, out: AskOutput, remember: (c: string, m: AskMemory) => void): void {
  if (out.kind === 'clarify') {
    ctx.askInput(clarifyParts(out));
    return;
  }
  if (out.kind === 'declined') {
    status(ctx, 'TASK_STATE_REJECTED', declinedParts(out.reason, out.hints, out.attempts?.length ? { attempts: toJsonValue(out.attempts) } : {}));
    return;
  }
  remember(ctx.conversationKey, out.memory);
  ctx.artifact(answerParts(out), { name: 'answer', metadata: { skill: 'ask', resultId: out.resultId, tableExpert: toJsonValue(out.memory) } });
  ctx.complete();
}

function status(ctx: AgentContext, state: 'TASK_STATE_REJECTED' | 'TASK_STATE_FAILED', parts: Part[]): void {
  ctx.emit({ kind: 'status', state, message: parts });
}

/** The question to refine: from a referenced task's answer, else the context's last answer. */
function previousOf(ctx: AgentContext, memory: Map<string, AskMemory>): { previous?: AskMemory } {
  for (const t of [...ctx.referenceTasks].reverse()) {
    for (const a of [...(t.artifacts ?? [])].reverse()) {
      const m = a.metadata?.tableExpert;
      // our own answer's metadata (answer() below wrote it from an AskMemory), read back: the shape is ours
      if (m && typeof m === 'object' && !Array.isArray(m) && typeof (m as JsonObject).question === 'string') return { previous: m as unknown as AskMemory };
    }
  }
  const m = memory.get(ctx.conversationKey);
  return m ? { previous: m } : {};
}

interface Pending {
  term: string;
  choices: Array<{ id: string; label: string }>;
  original: string;
  resolutions: Record<string, string>;
}

function pendingClarification(task: Task | undefined): Pending | undefined {
  if (task?.status.state !== 'TASK_STATE_INPUT_REQUIRED') return undefined;
  for (const p of task.status.message?.parts ?? []) {
    const c = p.data && typeof p.data === 'object' && !Array.isArray(p.data) ? (p.data as JsonObject).clarify : undefined;
    // the clarify part clarifyParts() wrote on this task, read back: the shape is ours
    if (c && typeof c === 'object' && !Array.isArray(c)) return c as unknown as Pending;
  }
  return undefined;
}

/** The choice a reply names: its number, its id, its label, or its table. */
function chosen(message: Message, pending: Pending): string | undefined {
  for (const p of message.parts) {
    const d = p.data;
    if (d && typeof d === 'object' && !Array.isArray(d) && typeof (d as JsonObject).choice === 'string') {
      const id = (d as JsonObject).choice as string;
      if (pending.choices.some((c) => c.id === id)) return id;
    }
  }
  const text = message.parts
    .filter((p) => typeof p.text === 'string')
    .map((p) => p.text)
    .join(' ')
    .trim()
    .toLowerCase()
    // quotes and a closing full stop go; the dot inside an id (`products.category`) stays
    .replace(/[!"']/g, '')
    .replace(/\.+$/, '');
  if (!text) return undefined;
  const n = Number(text);
  if (Number.isInteger(n) && n >= 1 && n <= pending.choices.length) return pending.choices[n - 1]!.id;
  const exact = pending.choices.find((c) => c.id.toLowerCase() === text || c.label.toLowerCase() === text);
  if (exact) return exact.id;
  const byTable = pending.choices.filter((c) => {
    const table = c.id.split('.')[0]!;
    return text === table || text === table.replace(/s$/, '') || text.split(/\s+/).includes(table) || text.split(/\s+/).includes(table.replace(/s$/, ''));
  });
  return byTable.length === 1 ? byTable[0]!.id : undefined;
}
