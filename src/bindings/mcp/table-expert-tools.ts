/**
 * The Table Expert's MCP tools: `search` and `fetch` in the shape ChatGPT deep research and
 * company knowledge require (one text item of JSON, the same object as `structuredContent`, a
 * non-empty `url` so citations work), and `query_table_expert` (a question or one SELECT in, the
 * answer out). They call the agent's skills as functions (skills.ts), sharing its engine and caches.
 */
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/server';
import type { Scope, TableExpert } from '../../agents/table-expert/skills.js';
import type { RegisteredAgent } from '../../core/agents/agent-registry.js';
import { errorResult } from './tool-result.js';

export interface TableExpertBinding {
  agentId: string;
  expert: TableExpert;
  /** the page that renders an item: `${itemUrl}/${encodeURIComponent(id)}` */
  itemUrl: string;
}

/** The Table Expert behind an agent, when it is one. */
export function tableExpertOf(agent: RegisteredAgent): TableExpert | undefined {
  const e = (agent.definition as { expert?: TableExpert }).expert;
  return e && typeof e.search === 'function' && typeof e.fetch === 'function' ? e : undefined;
}

const READ_ONLY = (title: string): ToolAnnotations => ({ title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });

export const TABLE_EXPERT_TOOLS = {
  search: {
    title: 'Search the data',
    description:
      'Searches the tables behind the Table Expert: table names, column names, row values and saved query results. ' +
      'Returns {"results": [{"id", "title", "url"}]}; pass an id to `fetch` for the full item.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, description: 'Words to look for, e.g. "Berlin headphones".' },
        // The replaced service's search took a result count; clients send it.
        limit: { type: 'integer', minimum: 1, maximum: 100, description: 'Results to return at most (default 10).' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    annotations: READ_ONLY('Search the data'),
  },
  fetch: {
    title: 'Fetch a data item',
    description:
      'Opens an id returned by `search` (a table preview, a column profile, a row or a saved result). ' +
      'Returns {"id", "title", "text", "url", "metadata"}.',
    inputSchema: {
      type: 'object',
      properties: { id: { type: 'string', minLength: 1, description: 'An id from search, e.g. "table:orders" or "row:orders:order_id=42".' } },
      required: ['id'],
      additionalProperties: false,
    },
    annotations: READ_ONLY('Fetch a data item'),
  },
  query_table_expert: {
    title: 'Ask the Table Expert',
    description:
      'Answers a question about the tables in plain English (e.g. "Top 5 products by revenue"), or runs one read-only SELECT. ' +
      'Returns the SQL it ran, the rows and a short summary.',
    inputSchema: {
      type: 'object',
      properties: {
        question: { type: 'string', minLength: 1, description: 'A question in plain English, or one SELECT statement.' },
        maxRows: { type: 'integer', minimum: 1, maximum: 1000, description: 'Rows to return at most (SELECT only).' },
      },
      required: ['question'],
      additionalProperties: false,
    },
    annotations: READ_ONLY('Ask the Table Expert'),
  },
} as const;

function jsonResult(obj: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(obj) }], structuredContent: obj };
}

function failure(err: unknown): CallToolResult {
  const e = err as { name?: string; message?: string; code?: string };
  if (e && (e.name === 'TableExpertError' || e.name === 'QueryError' || e.name === 'QueryRejectedError')) {
    return errorResult(`${e.message ?? 'The request failed.'}${e.code ? ` (${e.code})` : ''}`);
  }
  return errorResult('The Table Expert could not answer.');
}

export async function searchTool(b: TableExpertBinding, args: { query: string; limit?: number }, signal: AbortSignal, scope?: Scope): Promise<CallToolResult> {
  try {
    const out = await b.expert.search({ query: args.query, ...(args.limit !== undefined ? { limit: args.limit } : {}) }, { signal, ...(scope ? { scope } : {}) });
    return jsonResult({ results: out.results.map((h) => ({ id: h.id, title: h.title, url: `${b.itemUrl}/${encodeURIComponent(h.id)}` })) });
  } catch (err) {
    return failure(err);
  }
}

export async function fetchTool(b: TableExpertBinding, args: { id: string }, signal: AbortSignal, scope?: Scope): Promise<CallToolResult> {
  try {
    const out = await b.expert.fetch({ id: args.id }, { signal, ...(scope ? { scope } : {}) });
    return jsonResult({ id: out.id, title: out.title, text: out.text, url: `${b.itemUrl}/${encodeURIComponent(out.id)}`, metadata: { kind: out.kind, agent: b.agentId } });
  } catch (err) {
    return failure(err);
  }
}

const SQL_START = /^\s*(select|with|from|values)\b/i;

/** `scope`: the usecases whose datasets the caller may see (src/core/authz); absent: all. */
export async function queryTool(b: TableExpertBinding, args: { question: string; maxRows?: number }, signal: AbortSignal, scope?: Scope): Promise<CallToolResult> {
  const ctx = { signal, ...(scope ? { scope } : {}) };
  try {
    if (SQL_START.test(args.question)) {
      const out = await b.expert.query({ sql: args.question, ...(args.maxRows ? { maxRows: args.maxRows } : {}) }, ctx);
      const sc = { sql: out.sql, columns: out.result.columns, rows: out.result.rows, rowCount: out.result.rowCount, truncated: out.result.truncated, resultId: out.resultId, url: `${b.itemUrl}/${encodeURIComponent(out.resultId)}` };
      return { content: [{ type: 'text', text: `${out.markdown}\n\n\`\`\`sql\n${out.sql}\n\`\`\`` }, { type: 'text', text: JSON.stringify(sc) }], structuredContent: sc };
    }
    const out = await b.expert.ask({ question: args.question }, ctx);
    if (out.kind === 'answer') {
      const sc = {
        question: out.question,
        sql: out.sql,
        columns: out.result.columns,
        rows: out.result.rows,
        rowCount: out.result.rowCount,
        truncated: out.result.truncated,
        resultId: out.resultId,
        url: `${b.itemUrl}/${encodeURIComponent(out.resultId)}`,
        ...(out.interpretation ? { interpretation: out.interpretation } : {}),
      };
      return { content: [{ type: 'text', text: `${out.summary}\n\n\`\`\`sql\n${out.sql}\n\`\`\`` }, { type: 'text', text: JSON.stringify(sc) }], structuredContent: sc };
    }
    if (out.kind === 'clarify') {
      const choices = out.choices.map((c) => `- ${c.label} (${c.id})`).join('\n');
      return {
        isError: true,
        content: [{ type: 'text', text: `${out.question}\n${choices}\n\nAsk again naming one of these, e.g. "${out.original.replace(new RegExp(out.term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i'), out.choices[0]?.label ?? out.term)}".` }],
        structuredContent: { clarify: { term: out.term, choices: out.choices, original: out.original } },
      };
    }
    return {
      isError: true,
      content: [{ type: 'text', text: `${out.reason}${out.hints.length ? `\n\nQuestions that work:\n${out.hints.map((h) => `- ${h}`).join('\n')}` : ''}` }],
      structuredContent: { declined: { reason: out.reason, hints: out.hints } },
    };
  } catch (err) {
    return failure(err);
  }
}
