/**
 * The console's MCP client for one agent's own endpoint (`/a2a/{id}/mcp`): plain JSON-RPC over
 * Streamable HTTP in the stateless legacy era (no initialize needed, docs/mcp.md), through the
 * console's session like every other call. An answer may come as JSON or as Server-Sent Events
 * whose last data line is the response.
 */
import { call, serverUrl } from './api.js';
import type { ObjectSchema } from './playground/schema-form.js';

export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: ObjectSchema;
}

export interface McpExchange<T> {
  request: string;
  response: string;
  result?: T;
  error?: string;
}

let requestId = 0;

export async function mcpRequest<T>(agentId: string, method: string, params: unknown): Promise<McpExchange<T>> {
  const request = JSON.stringify({ jsonrpc: '2.0', id: ++requestId, method, params });
  const res = await call(serverUrl(`a2a/${encodeURIComponent(agentId)}/mcp`), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-06-18' },
    body: request,
  });
  const text = await res.text();
  const data = text.startsWith('{')
    ? text
    : (text
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .at(-1) ?? '');
  const answer = JSON.parse(data) as { result?: T; error?: { message?: string } };
  return { request, response: data, ...(answer.result !== undefined ? { result: answer.result } : {}), ...(answer.error ? { error: answer.error.message ?? 'error' } : {}) };
}

export async function listTools(agentId: string): Promise<McpTool[]> {
  const x = await mcpRequest<{ tools: McpTool[] }>(agentId, 'tools/list', {});
  if (x.error || !x.result) throw new Error(x.error ?? 'tools/list answered nothing');
  return x.result.tools;
}
