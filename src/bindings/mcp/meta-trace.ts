/**
 * MCP carries the caller's trace context in the request's `params._meta` (`traceparent`,
 * `tracestate`; MCP 2026-07-28 and the OTel MCP conventions), where an HTTP header may be absent or
 * name a hop in between. A request with one gets an MCP server span in that trace, named
 * `{mcp.method.name} {target}` and linked to the HTTP request's span; everything the call does
 * hangs under it (the span's context replaces the request's in the call's usage draft, which the
 * core reads its parent from). Only called with tracing on.
 */
import { contextWith, extractContext, failSpan, hasRemoteParent, linkToContext, SpanKind, startSpan } from '../../observability/tracing/index.js';
import type { UsageDraft } from '../../core/usage/usage-draft.js';

interface McpRequestShape {
  id?: unknown;
  method?: unknown;
  params?: { name?: unknown; _meta?: Record<string, unknown> };
}

/** Runs `dispatch` in the span `_meta` asks for, or as it is when the body carries no trace context. */
export function inMcpMetaTrace<T>(body: string | undefined, versionHeader: string | undefined, usage: UsageDraft | undefined, dispatch: () => Promise<T>): Promise<T> {
  // Most bodies carry none: no second parse for them.
  if (body === undefined || !body.includes('"traceparent"')) return dispatch();
  let m: McpRequestShape;
  try {
    m = JSON.parse(body) as McpRequestShape;
  } catch {
    return dispatch();
  }
  const meta = m?.params?._meta;
  if (typeof m?.method !== 'string' || !meta || typeof meta !== 'object') return dispatch();
  const parent = extractContext(meta);
  if (!hasRemoteParent(parent)) return dispatch();
  const tool = m.method === 'tools/call' && typeof m.params?.name === 'string' ? m.params.name.slice(0, 128) : undefined;
  const here = linkToContext(usage?.trace);
  const span = startSpan(tool ? `${m.method} ${tool}` : m.method, {
    kind: SpanKind.SERVER,
    parent,
    ...(here ? { links: [here] } : {}),
    attributes: {
      'mcp.method.name': m.method,
      ...(tool ? { 'gen_ai.tool.name': tool, 'gen_ai.operation.name': 'execute_tool' } : {}),
      ...(typeof m.id === 'string' || typeof m.id === 'number' ? { 'jsonrpc.request.id': String(m.id) } : {}),
      ...(versionHeader ? { 'mcp.protocol.version': versionHeader } : {}),
      'network.transport': 'tcp',
    },
  });
  if (usage) usage.trace = contextWith(span, parent);
  return dispatch().then(
    (v) => {
      span.end();
      return v;
    },
    (err: unknown) => {
      failSpan(span, err);
      span.end();
      throw err;
    },
  );
}
