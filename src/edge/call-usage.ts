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

const DRAFT = Symbol('agentport.usageDraft');

type WithDraft = IncomingMessage & { [DRAFT]?: UsageDraft };

/** The call's usage draft, when usage records are on. */
export function usageOf(req: IncomingMessage): UsageDraft | undefined {
  return (req as WithDraft)[DRAFT];
}

/** Probes answered many times a minute: not calls anyone bills or analyses. */
const UNRECORDED = new Set(['/healthz', '/readyz', '/metrics']);

/** Opens the draft of a request the edge admitted for `face`, and closes it when the answer is out. */
export function trackUsage(recorder: UsageRecorder, req: IncomingMessage, res: ServerResponse, face: string, path: string, requestId: string): void {
  if (UNRECORDED.has(path)) return;
  const draft = recorder.open(face);
  if (!draft) return;
  draft.requestId = requestId;
  (req as WithDraft)[DRAFT] = draft;
  const t0 = performance.now();
  const socket = req.socket;
  // Requests on a keep-alive connection take turns, so what the socket wrote meanwhile is this answer.
  const written0 = socket.bytesWritten;
  const writeHead = res.writeHead;
  // Every answer passes here once, explicitly or from its first write (Node's implicit header).
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    draft.ttfbMs ??= performance.now() - t0;
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse['writeHead'];
  res.once('close', () => {
    // A face that named no operation (OAuth, a preflight, an unknown path): the path, ids masked.
    draft.operation ??= `${req.method ?? 'GET'} ${pathPattern(path)}`;
    if (draft.bytesIn === undefined) {
      const length = Number(req.headers['content-length']);
      if (length > 0) draft.bytesIn = length;
    }
    recorder.finish(draft, { status: res.statusCode, latencyMs: performance.now() - t0, bytesOut: socket.bytesWritten - written0, aborted: !res.writableFinished });
  });
}

/** A segment that names one thing (a task, a client, an interaction): 8+ characters with a digit, or long. */
const ID_LIKE = /^(?=.*\d)[\w.~%-]{8,}$|^[\w.~%-]{33,}$/;

/** The path with id-like segments as `:id`, so records group by route and never carry an id. */
export function pathPattern(path: string): string {
  const segments = path.split('/').slice(0, 8);
  return segments.map((s) => (ID_LIKE.test(s) ? ':id' : s.length > 40 ? ':long' : s)).join('/');
}
