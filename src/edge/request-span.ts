/**
 * The request's server span (docs/observability.md, "Traces"): opened by the edge as a request
 * arrives, in the trace the caller's `traceparent` names (or a new one), and ended when the answer
 * is out, named by the operation the face and the core wrote into the call's usage draft
 * (`SendMessage`, MCP `tools/call <tool>`), else by method and route. It is also the binding's span
 * (`agentport.binding`): a separate span for the face's decoding and encoding measured as one more
 * span per request for no time of its own worth showing (bench). Only called with tracing on.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { contextWith, endFailed, endWhenSettled, extractContext, SpanKind, SpanStatusCode, startSpan, traceIdOf, type Context, type Span } from '../observability/tracing/index.js';
import { pathPattern, usageOf } from './call-usage.js';
import type { UsageDraft } from '../core/usage/usage-draft.js';

const TRACE = Symbol('agentport.requestTrace');
const REQUEST_ID = Symbol('agentport.requestId');

type WithTrace = IncomingMessage & { [TRACE]?: Context; [REQUEST_ID]?: string };

/**
 * Opens the request's server span, then runs `serve`. The span's context stays on the request
 * (`requestTrace`) and goes into the call's usage draft (`traceCall`), which every face already
 * hands to the core: that is how the core's spans find their parent without a context manager.
 */
export function traceRequest(req: IncomingMessage, res: ServerResponse, serve: () => void): void {
  const parent = extractContext(req.headers);
  const span = startSpan(`${req.method ?? 'GET'}`, { kind: SpanKind.SERVER, parent, attributes: { 'http.request.method': req.method ?? 'GET' } });
  (req as WithTrace)[TRACE] = contextWith(span, parent);
  // `on`, not `once`: a response closes once, and `once` wraps the listener in two more objects
  res.on('close', () => endRequestSpan(span, req, res));
  serve();
}

/** The context of the request's server span (undefined with tracing off). */
export function requestTrace(req: IncomingMessage): Context | undefined {
  return (req as WithTrace)[TRACE];
}

/**
 * Notes the request id the edge gave the request, for its span's `agentport.request_id`. Read from
 * here, not from the response's headers: a face that writes `X-Request-Id` in its `writeHead` list
 * (the A2A face, ADR 0046) leaves nothing `getHeader` can read when the span ends.
 */
export function traceRequestId(req: IncomingMessage, requestId: string): void {
  (req as WithTrace)[REQUEST_ID] = requestId;
}

/** Puts the request's trace into the call's draft: the core's spans hang under it, the access log names it. */
export function traceCall(req: IncomingMessage): void {
  const d = usageOf(req);
  const trace = requestTrace(req);
  if (!d || !trace) return;
  d.trace = trace;
  d.traceId = traceIdOf(trace);
}

function endRequestSpan(span: Span, req: IncomingMessage, res: ServerResponse): void {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const d = usageOf(req);
  span.updateName(spanName(d, req.method ?? 'GET', path));
  // Set one by one, not gathered into an object for one setAttributes: the recorder's span keeps
  // each as a key, value pair anyway, and the object (a shape per set of optional keys) cost its
  // build and a walk of its keys (docs/benchmarks.md, *ic33*).
  span.setAttribute('url.path', path);
  span.setAttribute('http.response.status_code', res.statusCode);
  const id = (req as WithTrace)[REQUEST_ID];
  if (id !== undefined) span.setAttribute('agentport.request_id', id);
  if (d) setDraftAttributes(span, d);
  if (!res.writableFinished) span.setAttribute('agentport.aborted', true);
  if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** The span's name: MCP `{mcp.method.name} {target}` (OTel MCP conventions), the A2A operation, or the route. */
export function spanName(d: UsageDraft | undefined, method: string, path: string): string {
  if (!d?.operation) return `${method} ${pathPattern(path)}`;
  if (d.face.startsWith('mcp')) return d.tool !== undefined ? `${d.operation} ${d.tool}` : d.operation;
  return d.operation;
}

/** What the call told about itself: binding, operation, agent, task (never the caller's identity). */
export function noteDraft(span: Span, d: UsageDraft): void {
  setDraftAttributes(span, d);
}

function setDraftAttributes(span: Span, d: UsageDraft): void {
  span.setAttribute('agentport.binding', d.face);
  if (d.operation !== undefined) span.setAttribute(d.face.startsWith('mcp') ? 'mcp.method.name' : 'rpc.method', d.operation);
  if (d.tool !== undefined) span.setAttribute('gen_ai.tool.name', d.tool);
  if (d.agent !== undefined) span.setAttribute('agentport.agent', d.agent);
  if (d.skill !== undefined) span.setAttribute('agentport.skill', d.skill);
  if (d.taskId !== undefined) span.setAttribute('agentport.task.id', d.taskId);
  if (d.contextId !== undefined) span.setAttribute('agentport.context.id', d.contextId);
  if (d.error) span.setAttribute('error.type', d.outcome ?? 'error');
}

/**
 * The caller's authentication, as a child span of the request's. An answer known at once (a
 * caller itself, or `settled`: the anonymous caller's one fulfilled promise) ends the span at once
 * and is handed back as it is, so the edge keeps its path without a wait (`principalAtHand`):
 * wrapping it in the span's promise cost a traced request a promise, its reactions and an await
 * in the face (docs/benchmarks.md, *trace32*). A pending answer ends the span when it settles; a
 * rejection or a throw marks it failed.
 */
export function traceAuthentication<T>(req: IncomingMessage, authenticate: () => T | Promise<T>, settled?: Promise<T>): T | Promise<T> {
  const span = startSpan('authenticate', { parent: requestTrace(req) });
  let answer: T | Promise<T>;
  try {
    answer = authenticate();
  } catch (err) {
    endFailed(span, err);
    return Promise.reject(err);
  }
  if (answer === settled || !(answer instanceof Promise)) {
    span.end();
    return answer;
  }
  return endWhenSettled(span, answer);
}
