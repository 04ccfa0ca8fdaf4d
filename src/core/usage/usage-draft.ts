/**
 * What one call has told about itself so far, for its usage record. The edge (or the gRPC
 * listener) opens a draft when the call arrives; the face names its binding, the core names the
 * operation, agent, skill and caller as it admits the call, and a call that creates a task hands
 * the draft to the task, whose record then stands for the call. The recorder closes the draft when
 * the answer has gone out.
 */
import type { Principal } from '../authz/principal.js';
import type { Context } from '../../observability/tracing/index.js';
import type { UsageRecord } from '../../store/usage-record.js';
import type { UsageReport } from '../agents/agent-definition.js';
import { A2A_ERRORS, A2AError } from '../../protocol/a2a/errors.js';

/** LLM usage reported (AgentContext.reportUsage) and not yet written. */
export interface ReportedUsage {
  model?: string;
  /** every prompt token, cached ones included */
  promptTokens: number;
  completionTokens: number;
  /** of promptTokens, read from the prompt cache */
  cachedTokens: number;
  /** of promptTokens, written to the prompt cache */
  cacheWriteTokens: number;
  remoteSubject?: string;
  remoteIssuer?: string;
}

/** Adds a report to what is pending (tokens add up; the last model and remote identity named win). */
export function addReport(p: ReportedUsage | undefined, u: UsageReport): ReportedUsage {
  const out = p ?? { promptTokens: 0, completionTokens: 0, cachedTokens: 0, cacheWriteTokens: 0 };
  const prompt = nonNegative(u.promptTokens);
  out.promptTokens += prompt;
  out.completionTokens += nonNegative(u.completionTokens);
  // Cached tokens are a part of the prompt: never more than it, whatever a report says.
  const cached = Math.min(nonNegative(u.cachedTokens), prompt);
  out.cachedTokens += cached;
  out.cacheWriteTokens += Math.min(nonNegative(u.cacheWriteTokens), prompt - cached);
  if (typeof u.model === 'string' && u.model !== '') out.model = u.model.slice(0, 200);
  if (typeof u.remoteSubject === 'string' && u.remoteSubject !== '') out.remoteSubject = u.remoteSubject.slice(0, 200);
  if (typeof u.remoteIssuer === 'string' && u.remoteIssuer !== '') out.remoteIssuer = u.remoteIssuer.slice(0, 500);
  return out;
}

function nonNegative(n: unknown): number {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

export class UsageDraft {
  /** binding and protocol version ('a2a-jsonrpc/1.0'); the edge's face name until the face says more */
  face: string;
  operation?: string;
  agent?: string;
  skill?: string;
  tool?: string;
  taskId?: string;
  contextId?: string;
  subject?: string;
  clientId?: string;
  keyId?: string;
  usecase?: string;
  /** set by whoever saw the call fail; absent at the end means the HTTP status decides */
  outcome?: string;
  error = false;
  /** the JSON-RPC error code of an MCP call that failed with one (metrics' `error.type`) */
  jsonRpcCode?: number;
  /** this call created a task: the task's record is the call's (no second record) */
  createdTask = false;
  /** a call not worth a record (health probes) */
  skip = false;
  /**
   * The call ran an agent that answered with a message and no task: its own record is the bill
   * (priced per call and per reported token, like a task), written through the call queue.
   */
  answeredWithoutTask = false;
  /** LLM usage reported by that run */
  reported?: ReportedUsage;
  /** performance.now() at arrival, for listeners that time the call themselves (gRPC) */
  startedMs?: number;
  /** ms after `startedAt` the first byte of the answer went out */
  ttfbMs?: number;
  bytesIn?: number;
  /** the listener's id of this request (the edge's X-Request-Id; gRPC's x-request-id or its own) */
  requestId?: string;
  /** the W3C trace id of the call's span, set by tracing when it is on (for the access log) */
  traceId?: string;
  /**
   * With tracing on, the context of the call's innermost server span (the request's, or the MCP
   * `_meta` span): the parent of the core's spans. Carried here because the draft already travels
   * with every call to the core (CallContext.usage, or the principal for MCP).
   */
  trace?: Context;

  constructor(
    face: string,
    /** epoch ms the call arrived */
    readonly startedAt: number,
  ) {
    this.face = face;
  }

  /** The caller's dimensions, once authenticated. */
  noteCaller(p: Principal): void {
    if (!p.authenticated) {
      this.subject ??= p.subject;
      return;
    }
    this.subject = p.subject;
    if (p.clientId !== undefined) this.clientId = p.clientId;
    if (p.keyId !== undefined) this.keyId = p.keyId;
    if (p.usecase !== undefined) this.usecase = p.usecase;
  }

  /** The call failed with `err`: its outcome is the error's reason (A2A's ErrorInfo reason). */
  noteError(err: unknown): void {
    this.error = true;
    this.outcome = err instanceof A2AError ? A2A_ERRORS[err.kind].reason : 'INTERNAL_ERROR';
  }
}

const CARRIED = Symbol('agentport.usageDraft');

/**
 * The caller of one request, carrying that request's draft. For faces whose core calls are made
 * deep inside a library's handlers (the MCP SDK's tool callbacks), where only the principal
 * travels: the core takes the draft back from it (`usageCarriedBy`).
 */
export function carryUsage(p: Principal, d: UsageDraft): Principal {
  return Object.freeze({ ...p, [CARRIED]: d });
}

export function usageCarriedBy(p: Principal): UsageDraft | undefined {
  return (p as Principal & { [CARRIED]?: UsageDraft })[CARRIED];
}

/** What a report carries beyond the summed tokens onto a record: cached tokens, the model, the remote identity (absent stays absent). */
export function copyReportedFields(u: ReportedUsage | undefined, r: UsageRecord): void {
  if (!u) return;
  if (u.cachedTokens) r.cachedTokens = u.cachedTokens;
  if (u.model !== undefined) r.model = u.model;
  if (u.remoteSubject !== undefined) r.remoteSubject = u.remoteSubject;
  if (u.remoteIssuer !== undefined) r.remoteIssuer = u.remoteIssuer;
}

/** The draft's optional dimensions onto a record (only those it has: absent stays absent). */
export function copyDraftFields(d: UsageDraft, r: UsageRecord): void {
  if (d.skill !== undefined) r.skill = d.skill;
  if (d.tool !== undefined) r.tool = d.tool;
  if (d.clientId !== undefined) r.clientId = d.clientId;
  if (d.keyId !== undefined) r.keyId = d.keyId;
  if (d.usecase !== undefined) r.usecase = d.usecase;
  if (d.bytesIn !== undefined) r.bytesIn = d.bytesIn;
}
