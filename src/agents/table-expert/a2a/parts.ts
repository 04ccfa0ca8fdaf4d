/**
 * Skill outputs as A2A parts: markdown for people, a DataPart for programs, the SQL as its own
 * part, and a Vega-Lite spec when the result suits a chart. The media types are the contract
 * described in docs/table-expert.md.
 */
import { toJsonValue } from '../../../protocol/a2a/json.js';
import type { JsonObject, JsonValue, Part } from '../../../protocol/a2a/types.js';
import { VEGA_LITE_MEDIA_TYPE } from '../answer/chart.js';
import type { QueryResult } from '../engine/duckdb-engine.js';
import type { AskOutput, DescribeOutput, FetchOutput, QueryOutput, SearchOutput } from '../skills.js';

export const MARKDOWN = 'text/markdown';
export const SQL = 'application/sql';
export const JSON_TYPE = 'application/json';

const md = (text: string): Part => ({ text, mediaType: MARKDOWN });
const sql = (text: string): Part => ({ text, mediaType: SQL });
const data = (value: JsonValue): Part => ({ data: value, mediaType: JSON_TYPE });

export function resultData(r: QueryResult, extra: JsonObject = {}): JsonObject {
  return { columns: r.columns.map((c) => ({ name: c.name, type: c.type })), rows: r.rows, rowCount: r.rowCount, truncated: r.truncated, elapsedMs: r.elapsedMs, ...extra };
}

export function describeParts(o: DescribeOutput): Part[] {
  return [md(o.markdown), data({ tables: toJsonValue(o.tables), relations: toJsonValue(o.relations) })];
}

export function searchParts(o: SearchOutput): Part[] {
  const lines = o.results.length ? o.results.map((h, i) => `${i + 1}. **${h.title}** — ${h.text} \`${h.id}\``) : [`Nothing matches "${o.query}".`];
  return [md(lines.join('\n')), data({ query: o.query, results: toJsonValue(o.results) })];
}

export function fetchParts(o: FetchOutput): Part[] {
  return [md(o.text), data({ id: o.id, kind: o.kind, title: o.title, ...o.data })];
}

export function queryParts(o: QueryOutput): Part[] {
  return [md(o.markdown), sql(o.sql), data(resultData(o.result, { resultId: o.resultId })), ...(o.chart ? [{ data: o.chart, mediaType: VEGA_LITE_MEDIA_TYPE }] : [])];
}

export function answerParts(o: Extract<AskOutput, { kind: 'answer' }>): Part[] {
  const extra: JsonObject = { resultId: o.resultId, source: o.source, ...(o.interpretation ? { interpretation: o.interpretation } : {}), ...(o.verified ? { verified: true } : {}) };
  if (o.attempts && o.attempts.length > 1) extra.attempts = toJsonValue(o.attempts);
  return [md(o.summary), sql(o.sql), data(resultData(o.result, extra)), ...(o.chart ? [{ data: o.chart, mediaType: VEGA_LITE_MEDIA_TYPE }] : [])];
}

export function clarifyParts(o: Extract<AskOutput, { kind: 'clarify' }>): Part[] {
  const list = o.choices.map((c, i) => `${i + 1}. ${c.label}`).join('\n');
  return [md(`${o.question}\n\n${list}\n\nReply with the number or the name.`), data({ clarify: { term: o.term, choices: toJsonValue(o.choices), original: o.original, resolutions: o.resolutions } })];
}

export function declinedParts(reason: string, hints: string[], extra: JsonObject = {}): Part[] {
  const text = hints.length ? `${reason}\n\nQuestions I can answer, for example:\n${hints.map((h) => `- ${h}`).join('\n')}` : reason;
  return [md(text), data({ error: { code: 'declined', reason, hints }, ...extra })];
}

export function errorParts(code: string, reason: string): Part[] {
  return [md(reason), data({ error: { code, reason } })];
}
