/**
 * The Table Expert's MCP tools: `search` and `fetch` in the shape ChatGPT deep research and
 * company knowledge require (one text item of JSON, the same object as `structuredContent`, a
 * non-empty `url` so citations work), and `query_table_expert` (a question or one SELECT in, the
 * answer out). They call the agent's skills as functions (skills.ts), sharing its engine and
 * caches; each call runs as a task of the agent (src/agents/sdk/mcp-tools.ts), with the caller's
 * usecases from the core.
 */
import type { AgentContext } from '../../sdk/agent.js';
import type { AgentTool, AgentToolCall, AgentToolHints, AgentToolResult } from '../../sdk/mcp-tools.js';
import type { JsonObject } from '../../../protocol/a2a/types.js';
import type { SkillContext, TableExpert } from '../skills.js';

const READ_ONLY = (title: string): AgentToolHints => ({ title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });

const SQL_START = /^\s*(select|with|from|values)\b/i;

function errorResult(text: string): AgentToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** Results are plain JSON data (rows, ids, texts); their TypeScript types lack the index signature. */
const json = (obj: object): JsonObject => obj as JsonObject;

function jsonResult(obj: JsonObject): AgentToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(obj) }], structuredContent: obj };
}

function failure(err: unknown): AgentToolResult {
  const e = err as { name?: string; message?: string; code?: string };
  if (e && (e.name === 'TableExpertError' || e.name === 'QueryError' || e.name === 'QueryRejectedError')) {
    return errorResult(`${e.message ?? 'The request failed.'}${e.code ? ` (${e.code})` : ''}`);
  }
  return errorResult('The Table Expert could not answer.');
}

/** A caller bound to usecases (src/core/authz) sees only their datasets. */
const skillContext = (ctx: AgentContext): SkillContext => ({ signal: ctx.signal, ...(ctx.usecases ? { scope: { usecases: ctx.usecases } } : {}) });

export function tableExpertTools(expert: TableExpert): AgentTool[] {
  return [
    {
      name: 'search',
      title: 'Search the data',
      description: 'Searches the tables behind the Table Expert: table names, column names, row values and saved query results. Returns {"results": [{"id", "title", "url"}]}; pass an id to `fetch` for the full item.',
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
      skills: ['search'],
      call: (args, ctx, call) => searchTool(expert, args as { query: string; limit?: number }, ctx, call),
    },
    {
      name: 'fetch',
      title: 'Fetch a data item',
      description: 'Opens an id returned by `search` (a table preview, a column profile, a row or a saved result). Returns {"id", "title", "text", "url", "metadata"}.',
      inputSchema: {
        type: 'object',
        properties: { id: { type: 'string', minLength: 1, description: 'An id from search, e.g. "table:orders" or "row:orders:order_id=42".' } },
        required: ['id'],
        additionalProperties: false,
      },
      annotations: READ_ONLY('Fetch a data item'),
      skills: ['fetch'],
      call: (args, ctx, call) => fetchTool(expert, args as { id: string }, ctx, call),
    },
    {
      name: 'query_table_expert',
      title: 'Ask the Table Expert',
      description: 'Answers a question about the tables in plain English (e.g. "Top 5 products by revenue"), or runs one read-only SELECT. Returns the SQL it ran, the rows and a short summary.',
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
      skills: ['ask', 'query'],
      skillFor: (args) => (typeof args.question === 'string' && SQL_START.test(args.question) ? 'query' : 'ask'),
      call: (args, ctx, call) => queryTool(expert, args as { question: string; maxRows?: number }, ctx, call),
    },
  ];
}

async function searchTool(expert: TableExpert, args: { query: string; limit?: number }, ctx: AgentContext, call: AgentToolCall): Promise<AgentToolResult> {
  try {
    const out = await expert.search({ query: args.query, ...(args.limit !== undefined ? { limit: args.limit } : {}) }, skillContext(ctx));
    return jsonResult({ results: out.results.map((h) => ({ id: h.id, title: h.title, url: call.pageUrl(h.id) })) });
  } catch (err) {
    return failure(err);
  }
}

async function fetchTool(expert: TableExpert, args: { id: string }, ctx: AgentContext, call: AgentToolCall): Promise<AgentToolResult> {
  try {
    const out = await expert.fetch({ id: args.id }, skillContext(ctx));
    return jsonResult({ id: out.id, title: out.title, text: out.text, url: call.pageUrl(out.id), metadata: { kind: out.kind, agent: ctx.agentId } });
  } catch (err) {
    return failure(err);
  }
}

async function queryTool(expert: TableExpert, args: { question: string; maxRows?: number }, ctx: AgentContext, call: AgentToolCall): Promise<AgentToolResult> {
  const skillCtx = skillContext(ctx);
  try {
    if (SQL_START.test(args.question)) {
      const out = await expert.query({ sql: args.question, ...(args.maxRows ? { maxRows: args.maxRows } : {}) }, skillCtx);
      const sc = json({ sql: out.sql, columns: out.result.columns, rows: out.result.rows, rowCount: out.result.rowCount, truncated: out.result.truncated, resultId: out.resultId, url: call.pageUrl(out.resultId) });
      return {
        content: [
          { type: 'text', text: `${out.markdown}\n\n\`\`\`sql\n${out.sql}\n\`\`\`` },
          { type: 'text', text: JSON.stringify(sc) },
        ],
        structuredContent: sc,
      };
    }
    const out = await expert.ask({ question: args.question }, skillCtx);
    if (out.kind === 'answer') {
      const sc = json({
        question: out.question,
        sql: out.sql,
        columns: out.result.columns,
        rows: out.result.rows,
        rowCount: out.result.rowCount,
        truncated: out.result.truncated,
        resultId: out.resultId,
        url: call.pageUrl(out.resultId),
        ...(out.interpretation ? { interpretation: out.interpretation } : {}),
      });
      return {
        content: [
          { type: 'text', text: `${out.summary}\n\n\`\`\`sql\n${out.sql}\n\`\`\`` },
          { type: 'text', text: JSON.stringify(sc) },
        ],
        structuredContent: sc,
      };
    }
    if (out.kind === 'clarify') {
      const choices = out.choices.map((c) => `- ${c.label} (${c.id})`).join('\n');
      return {
        isError: true,
        content: [
          {
            type: 'text',
            text: `${out.question}\n${choices}\n\nAsk again naming one of these, e.g. "${out.original.replace(new RegExp(out.term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i'), out.choices[0]?.label ?? out.term)}".`,
          },
        ],
        structuredContent: json({ clarify: { term: out.term, choices: out.choices, original: out.original } }),
      };
    }
    return {
      isError: true,
      content: [{ type: 'text', text: `${out.reason}${out.hints.length ? `\n\nQuestions that work:\n${out.hints.map((h) => `- ${h}`).join('\n')}` : ''}` }],
      structuredContent: json({ declined: { reason: out.reason, hints: out.hints } }),
    };
  } catch (err) {
    return failure(err);
  }
}
