/**
 * The LLM path of `ask`: the model sees the schema (tables, columns, types, keys, relations and
 * sample values) and writes one SELECT through the `run_sql` tool. Its statement goes through the
 * same guard and limits as anyone's; a rejection or an error is sent back as the tool result and
 * the model may repair it, at most `maxRepairs` times. A model without tool support may answer
 * with a ```sql block instead. After a result, the model may add a one-paragraph answer.
 */
import type { ResolvedSemantic } from '../planner/semantic.js';
import type { Relation } from '../catalog/catalog.js';
import type { TableProfile } from '../catalog/profile.js';
import type { QueryResult, Scope, TableEngine } from '../engine/duckdb-engine.js';
import { QueryError, QueryRejectedError } from '../engine/errors.js';
import type { LlmOptions } from '../options.js';
import { chatCompletion, type ChatMessage, type ModelUsage, type ToolSpec } from './chat-client.js';
import type { Context } from '../../../observability/tracing/index.js';

export const RUN_SQL_TOOL: ToolSpec = {
  type: 'function',
  function: {
    name: 'run_sql',
    description: 'Runs one read-only DuckDB SELECT statement over the dataset tables and returns the first rows.',
    parameters: {
      type: 'object',
      properties: {
        sql: { type: 'string', description: 'a single SELECT (or WITH … SELECT) statement' },
        reading: { type: 'string', description: 'one line: how you read the question (the figure, its grouping, filters and order), e.g. "total revenue by month in 2024, highest first"' },
      },
      required: ['sql', 'reading'],
      additionalProperties: false,
    },
  },
};

/** The model asks instead of guessing: the task pauses in INPUT_REQUIRED with these choices. */
export const ASK_USER_TOOL: ToolSpec = {
  type: 'function',
  function: {
    name: 'ask_user',
    description:
      'Asks the user which of two or more readings of the question is meant, instead of guessing. Use it when a part of the question (a measure, a ranking, a period, a filter) has more than one sensible meaning in these tables.',
    parameters: {
      type: 'object',
      properties: {
        question: { type: 'string', description: 'the question to the user, e.g. "Did you mean total revenue per month, or the largest single order?"' },
        choices: { type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 6, description: 'the readings to choose from' },
      },
      required: ['question', 'choices'],
      additionalProperties: false,
    },
  },
};

export interface Attempt {
  sql: string;
  /** why it did not give a result */
  error?: string;
}

export type LlmAnswer =
  | { kind: 'answer'; sql: string; result: QueryResult; attempts: Attempt[]; modelSummary?: string; reading?: string }
  | { kind: 'ask'; question: string; choices: string[]; attempts: Attempt[] }
  | { kind: 'no_sql'; text: string; attempts: Attempt[] }
  | { kind: 'gave_up'; attempts: Attempt[]; reason: string };

export interface LlmTurn {
  question: string;
  sql: string;
}

const SAMPLE_ROWS_FOR_MODEL = 20;

export function schemaPrompt(profiles: readonly TableProfile[], relations: readonly Relation[], maxRows: number, semantic?: ResolvedSemantic): string {
  const lines = [
    'You answer questions about tabular data by writing SQL for DuckDB.',
    'Rules: write exactly one read-only SELECT (or WITH … SELECT) statement; use only the tables below;',
    'never use file-reading functions, PRAGMA, SET, ATTACH, COPY, INSTALL or LOAD;',
    `return at most ${maxRows} rows (add LIMIT when listing rows); give result columns short snake_case names.`,
    'Call the run_sql tool with the statement and a one-line reading of the question. Cover every part of the question (each measure, filter, ranking and comparison);',
    'if a part has more than one sensible meaning here, call ask_user with the readings instead of guessing. If the question cannot be answered from these tables, say so in one sentence without calling a tool.',
    '',
    'Tables:',
  ];
  for (const p of profiles) {
    lines.push(`- ${p.name} (${p.rowCount} rows${p.description ? `; ${p.description}` : ''})`);
    for (const c of p.columns) {
      const rel = relations.find((r) => r.from.table === p.name && r.from.column === c.name);
      const facts = [
        p.key?.includes(c.name) ? 'key' : '',
        rel ? `references ${rel.to.table}.${rel.to.column}` : '',
        c.values ? `values: ${c.values.slice(0, 12).join(', ')}${c.values.length > 12 ? ', …' : ''}` : '',
        !c.values && c.min !== undefined && c.max !== undefined ? `range ${String(c.min)} … ${String(c.max)}` : '',
      ].filter(Boolean);
      const key = `${p.name}.${c.name}`;
      const said = semantic
        ? [
            semantic.descriptions[key] ?? '',
            semantic.units[key] ? `unit: ${semantic.units[key]}` : '',
            Object.entries(semantic.synonyms)
              .filter(([, t]) => t === key)
              .map(([w]) => `"${w}"`)
              .join(', ')
              .replace(/^(.+)$/, 'also called $1'),
            semantic.values
              .filter((v) => v.table === p.name && v.column === c.name)
              .map((v) => `"${v.alias}" means ${v.value}`)
              .join(', '),
          ].filter(Boolean)
        : [];
      lines.push(
        `    ${JSON.stringify(c.name).slice(1, -1) === c.name && /^[a-z_][a-z0-9_]*$/.test(c.name) ? c.name : `"${c.name}"`} ${c.type}${[...facts, ...said].length ? ` — ${[...facts, ...said].join('; ')}` : ''}`,
      );
    }
  }
  if (semantic?.measures.length) {
    lines.push('', 'Named measures (use this SQL when the question names the measure):');
    for (const m of semantic.measures) lines.push(`- ${m.name}${m.description ? ` (${m.description})` : ''}: ${m.sql}`);
  }
  if (semantic?.timeColumns.length) lines.push('', `Default time columns (for "in 2017", "by month" unless another date is named): ${semantic.timeColumns.join(', ')}`);
  // the data's owners wrote and checked these: the model follows their SQL for the same question
  if (semantic?.verified.length) {
    lines.push('', 'Verified questions (SQL checked by the data owners; reuse it for the same or a close question):');
    for (const v of semantic.verified) lines.push(`- ${v.question}\n    ${v.sql.replace(/\s+/g, ' ')}`);
  }
  return lines.join('\n');
}

/** The statement in a reply without tool calls: a ```sql block, or the whole text if it is one. */
export function sqlFromText(text: string): string | undefined {
  const fenced = /```(?:sql|duckdb)?\s*\n([\s\S]*?)```/i.exec(text);
  if (fenced) return fenced[1]!.trim();
  const t = text.trim();
  return /^(select|with)\s/i.test(t) ? t : undefined;
}

function errorText(e: unknown): string {
  if (e instanceof QueryRejectedError) return `rejected by the guard: ${e.reason}`;
  if (e instanceof QueryError) return `${e.code === 'sql_error' ? 'DuckDB error' : e.code}: ${e.message}`;
  return (e as Error).message ?? String(e);
}

export async function writeAndRunSql(args: {
  /** the datasets' semantic layer: descriptions, synonyms, units, value aliases, verified questions */
  semantic?: ResolvedSemantic;
  llm: LlmOptions;
  engine: TableEngine;
  profiles: readonly TableProfile[];
  relations: readonly Relation[];
  question: string;
  history: readonly LlmTurn[];
  scope?: Scope;
  maxRows: number;
  signal?: AbortSignal;
  /** with tracing on, the span the model calls are made in */
  trace?: Context | undefined;
  onAttempt?: (a: Attempt) => void;
  /** each model call's token usage */
  onUsage?: (u: ModelUsage) => void;
  /** answers to the model's earlier ask_user questions: question → chosen reading */
  clarifications?: Readonly<Record<string, string>>;
}): Promise<LlmAnswer> {
  const { llm, engine } = args;
  const messages: ChatMessage[] = [{ role: 'system', content: schemaPrompt(args.profiles, args.relations, args.maxRows, args.semantic) }];
  for (const turn of args.history) {
    messages.push({ role: 'user', content: turn.question }, { role: 'assistant', content: `SQL used:\n\`\`\`sql\n${turn.sql}\n\`\`\`` });
  }
  const clarified = Object.entries(args.clarifications ?? {});
  messages.push({ role: 'user', content: clarified.length ? `${args.question}\n(Clarified: ${clarified.map(([q, a]) => `${q} → ${a}`).join('; ')})` : args.question });
  const attempts: Attempt[] = [];
  for (let round = 0; round <= llm.maxRepairs; round++) {
    const reply = await chatCompletion(llm, messages, { tools: [RUN_SQL_TOOL, ASK_USER_TOOL], ...(args.signal ? { signal: args.signal } : {}), trace: args.trace });
    if (reply.usage) args.onUsage?.(reply.usage);
    const asked = reply.toolCalls.find((c) => c.function.name === 'ask_user');
    if (asked) {
      const q = parseAsk(asked.function.arguments);
      if (q) return { kind: 'ask', question: q.question, choices: q.choices, attempts };
    }
    const call = reply.toolCalls.find((c) => c.function.name === 'run_sql') ?? reply.toolCalls[0];
    let sql: string | undefined;
    let reading: string | undefined;
    if (call) {
      try {
        const parsed = JSON.parse(call.function.arguments || '{}') as { sql?: unknown; reading?: unknown };
        sql = typeof parsed.sql === 'string' ? parsed.sql : undefined;
        reading = typeof parsed.reading === 'string' && parsed.reading.trim() ? parsed.reading.trim().replace(/\s+/g, ' ').slice(0, 300) : undefined;
      } catch {
        sql = undefined;
      }
      messages.push({ role: 'assistant', content: reply.content || null, tool_calls: [call] });
      if (!sql || call.function.name !== 'run_sql') {
        const error = call.function.name !== 'run_sql' ? `unknown tool ${call.function.name}; use run_sql` : 'the run_sql arguments must be JSON with a "sql" string';
        attempts.push({ sql: sql ?? '', error });
        args.onAttempt?.(attempts.at(-1)!);
        messages.push({ role: 'tool', tool_call_id: call.id, content: `ERROR: ${error}` });
        continue;
      }
    } else {
      sql = sqlFromText(reply.content);
      if (!sql) return { kind: 'no_sql', text: reply.content.trim(), attempts };
      messages.push({ role: 'assistant', content: reply.content });
    }
    try {
      const result = await engine.query(sql, { maxRows: args.maxRows, ...(args.scope ? { scope: args.scope } : {}), ...(args.signal ? { signal: args.signal } : {}) });
      attempts.push({ sql: result.sql });
      args.onAttempt?.(attempts.at(-1)!);
      const modelSummary = await summarizeWithModel(llm, messages, call?.id, result, args.signal, args.onUsage, args.trace).catch(() => undefined);
      return { kind: 'answer', sql: result.sql, result, attempts, ...(modelSummary ? { modelSummary } : {}), ...(reading ? { reading } : {}) };
    } catch (e) {
      if (args.signal?.aborted) throw e;
      const error = errorText(e);
      attempts.push({ sql, error });
      args.onAttempt?.(attempts.at(-1)!);
      const feedback = `ERROR: ${error}\nWrite a corrected statement and call run_sql again.`;
      if (call) messages.push({ role: 'tool', tool_call_id: call.id, content: feedback });
      else messages.push({ role: 'user', content: feedback });
    }
  }
  return { kind: 'gave_up', attempts, reason: `the model's SQL did not run after ${attempts.length} attempt${attempts.length === 1 ? '' : 's'}: ${attempts.at(-1)?.error ?? 'no statement'}` };
}

function parseAsk(raw: string): { question: string; choices: string[] } | undefined {
  try {
    const v = JSON.parse(raw || '{}') as { question?: unknown; choices?: unknown };
    const choices = Array.isArray(v.choices) ? v.choices.filter((c): c is string => typeof c === 'string' && c.trim() !== '').slice(0, 6) : [];
    if (typeof v.question !== 'string' || !v.question.trim() || choices.length < 2) return undefined;
    return { question: v.question.trim().slice(0, 500), choices: choices.map((c) => c.trim().slice(0, 200)) };
  } catch {
    return undefined;
  }
}

async function summarizeWithModel(
  llm: LlmOptions,
  messages: ChatMessage[],
  callId: string | undefined,
  result: QueryResult,
  signal?: AbortSignal,
  onUsage?: (u: ModelUsage) => void,
  trace?: Context,
): Promise<string | undefined> {
  const payload = JSON.stringify({ columns: result.columns.map((c) => c.name), rows: result.rows.slice(0, SAMPLE_ROWS_FOR_MODEL), rowCount: result.rowCount, truncated: result.truncated });
  const followUp: ChatMessage[] = callId ? [...messages, { role: 'tool', tool_call_id: callId, content: payload }] : [...messages, { role: 'user', content: `Result: ${payload}` }];
  followUp.push({ role: 'user', content: 'Answer the question in one or two sentences from this result. Do not call tools.' });
  const reply = await chatCompletion(llm, followUp, { ...(signal ? { signal } : {}), trace });
  if (reply.usage) onUsage?.(reply.usage);
  const text = reply.content.trim();
  return text && reply.toolCalls.length === 0 ? text.slice(0, 2000) : undefined;
}
