/**
 * The edge's part in usage records: it opens a call's draft as the request arrives and closes it
 * when the answer has gone out, with what only the listener sees (status, time to the first byte
 * and to the end, bytes). Faces reach the draft through the request (`usageOf`) to name their
 * binding and version; the core fills in the rest through CallContext.usage.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { UsageRecorder } from '../core/usage/usage-recorder.js';
import type { UsageDraft } from '../core/usage/usage-draft.js';

const CALL = Symbol('agentport.usageCall');

/**
 * What the edge keeps of a call until its answer is out: one object per request, reached from the
 * request by the two listeners below (shared functions, not closures per request: a long-lived SSE
 * answer holds it for hours).
 */
class TrackedCall {
  constructor(
    readonly draft: UsageDraft,
    readonly recorder: UsageRecorder,
    readonly path: string,
    readonly t0: number,
    readonly written0: number,
    readonly writeHead: ServerResponse['writeHead'],
  ) {}
}

type WithCall = IncomingMessage & { [CALL]?: TrackedCall };

/** The call's usage draft, when usage records are on. */
export function usageOf(req: IncomingMessage): UsageDraft | undefined {
  return (req as WithCall)[CALL]?.draft;
}

/** Probes answered many times a minute: not calls anyone bills, analyses or traces. */
export const PROBE_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

/** Opens the draft of a request the edge admitted for `face`, and closes it when the answer is out. */
export function trackUsage(recorder: UsageRecorder, req: IncomingMessage, res: ServerResponse, face: string, path: string, requestId: string): void {
  if (PROBE_PATHS.has(path)) return;
  const draft = recorder.open(face);
  if (!draft) return;
  draft.requestId = requestId;
  // Requests on a keep-alive connection take turns, so what the socket wrote meanwhile is this answer.
  (req as WithCall)[CALL] = new TrackedCall(draft, recorder, path, performance.now(), req.socket.bytesWritten, res.writeHead);
  // Every answer passes here once, explicitly or from its first write (Node's implicit header).
  res.writeHead = timedWriteHead as ServerResponse['writeHead'];
  // 'close' comes once, after the answer or when the connection is lost.
  res.on('close', recordCall);
}

/**
 * `writeHead(statusCode[, statusMessage][, headers])` passed on as three arguments: an absent one
 * is undefined either way, and a rest parameter with `apply` cost an array and a spread per answer.
 */
function timedWriteHead(this: ServerResponse, statusCode: unknown, reason?: unknown, headers?: unknown): ServerResponse {
  const call = (this.req as WithCall)[CALL]!;
  call.draft.ttfbMs ??= performance.now() - call.t0;
  return (call.writeHead as (a: unknown, b: unknown, c: unknown) => ServerResponse).call(this, statusCode, reason, headers);
}

function recordCall(this: ServerResponse): void {
  const req = this.req as WithCall;
  const call = req[CALL];
  if (!call) return;
  const { draft } = call;
  // A face that named no operation (OAuth, a preflight): the path, ids masked. A path that names
  // nothing here (404: an unknown route, or the document of an unknown agent) is one value, never
  // the path, so random paths cannot grow the usage store (issue 25 U1).
  draft.operation ??= `${req.method ?? 'GET'} ${this.statusCode === 404 ? 'other' : pathPattern(call.path)}`;
  if (draft.bytesIn === undefined) {
    const length = Number(req.headers['content-length']);
    if (length > 0) draft.bytesIn = length;
  }
  call.recorder.finish(draft, { status: this.statusCode, latencyMs: performance.now() - call.t0, bytesOut: req.socket.bytesWritten - call.written0, aborted: !this.writableFinished });
}

/** A segment that names one thing (a task, a client, an interaction): 8+ characters with a digit, or long. */
const ID_LIKE = /^(?=.*\d)[\w.~%-]{8,}$|^[\w.~%-]{33,}$/;

/** The path with id-like segments as `:id`, so records group by route and never carry an id. */
export function pathPattern(path: string): string {
  const segments = path.split('/').slice(0, 8);
  return segments.map((s) => (ID_LIKE.test(s) ? ':id' : s.length > 40 ? ':long' : s)).join('/');
}
