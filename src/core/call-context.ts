/**
 * One A2A call's context, as the stages of the call pipeline (core/pipeline.ts) and the task
 * service see it. A class with every field set in its constructor, so that all contexts share one
 * V8 hidden class, and the stages fill their own fields in place instead of copying the context
 * once per stage (docs/decisions/0048-call-context-one-class.md).
 *
 * A context is one call's: a face that makes several calls (a read after a send, a cancel) makes
 * one context per call, since the stages write into it.
 *
 * Who sets what: the face sets the fields of the constructor and the ones below it up to
 * `messageIdMinted`; the surface stage `surface` and `usage`; the trace stage `trace`; the
 * resolve stage `agent`, `skills`, `skill`; the authorize stage `usecases`. A stage's fields are
 * read-only here and written by its one method (`resolved`, `authorized`, `traced`,
 * `onSurface`), so what writes them can be found.
 */
import type { UsageDraft } from './usage/usage-draft.js';
import type { Principal } from './authz/principal.js';
import type { RegisteredAgent } from './agents/agent-registry.js';
import type { Context } from '../observability/tracing/index.js';

/** The A2A versions a call can arrive in. The core speaks 1.0; the others are translated at the edge (src/bindings/a2a-legacy). */
export type WireVersion = '1.0' | '0.3' | '0.1';

/** No A2A-Extensions asked for: one frozen list for every such call. */
const NO_EXTENSIONS: readonly string[] = Object.freeze([]);

/** The fields a face may set when it builds a context (CallContext.of); the stages' own are not among them, except where a face already knows them. */
export interface CallFields {
  signal?: AbortSignal | undefined;
  clientGone?: (() => boolean | Promise<boolean>) | undefined;
  wireVersion?: WireVersion | undefined;
  clientTaskId?: string | undefined;
  partOfCall?: boolean;
  forwarded?: boolean;
  messageIdMinted?: boolean;
  surface?: 'a2a' | 'mcp' | undefined;
  usage?: UsageDraft | undefined;
  trace?: Context | undefined;
  usecases?: readonly string[] | undefined;
}

export class CallContext {
  /** the agent addressed (from the base path, or the `tenant` on shared endpoints) */
  agentId: string;
  principal: Principal;
  /** A2A-Extensions the client asked for */
  requestedExtensions: readonly string[];
  /** aborted when the client goes away (streams) */
  signal: AbortSignal | undefined = undefined;
  /**
   * true once the client's connection is gone (it gave up waiting); checked before work starts, so
   * requests queued behind a stall do not run for nobody (issue 19 C4). May answer asynchronously:
   * an HTTP binding first lets the server read what the socket already holds (bindings/connection-gone).
   */
  clientGone: (() => boolean | Promise<boolean>) | undefined = undefined;
  /**
   * The wire version the call arrived in; absent means 1.0. Only the legacy bindings set another.
   * Push configs remember it, so their webhooks get bodies in the registering client's version.
   */
  wireVersion: WireVersion | undefined = undefined;
  /**
   * A task id the client chose before the task exists (v0.1 clients named their tasks): a
   * SendMessage that creates a task creates it under this id instead of a fresh one. Only the v0.1
   * binding sets it.
   */
  clientTaskId: string | undefined = undefined;
  /**
   * A read or cancel a face makes to finish a call it already made (the MCP tool call's final
   * GetTask, its cancel when the client leaves): quotas counted the call once and do not count this.
   */
  partOfCall = false;
  /**
   * A message another replica received (and authorized) for a task this replica holds, entering
   * here as a local SendMessage does (core/cluster/cluster-router.ts): it is not forwarded again,
   * and its run acts for the caller stored with the task (the forwarded call carries no scopes).
   */
  forwarded = false;
  /**
   * The face made the message's messageId itself for this call (an MCP tool call): no earlier
   * request can have sent it, so SendMessage idempotency has nothing to find and the store is not
   * asked (a point read per call).
   */
  messageIdMinted = false;
  /** `mcp`: an MCP tool call or resource read, authorized under the `mcp:tools…` scopes (the surface stage, or a face calling for an agent) */
  surface: 'a2a' | 'mcp' | undefined = undefined;
  /** the call's usage draft, when usage records are on: the core names the operation, agent, skill and task in it */
  usage: UsageDraft | undefined = undefined;
  /**
   * With tracing on, the context of the call's core operation span (set by stages/tracing-a2a-handler.ts):
   * the parent of every span the call opens below (the agent's run, forwarding, a stream). Passed
   * explicitly: no context manager tracks it across awaits (docs/decisions/0018-tracing.md). Set
   * before the pipeline, it is the parent of the core span (an agent calling another).
   */
  readonly trace: Context | undefined = undefined;
  /** set by the resolve stage (core/stages/resolve.ts): the agent addressed, looked up once per call */
  readonly agent: RegisteredAgent | undefined = undefined;
  /** set by the resolve stage for a message: the skills it is for (the one the agent names, else all of them) */
  readonly skills: readonly string[] | undefined = undefined;
  /** set by the resolve stage for a message: its one skill, when the agent or an MCP tool call names it (quotas, usage) */
  readonly skill: string | undefined = undefined;
  /** set by the authorize stage: the usecases whose data the caller may see (undefined: all) */
  readonly usecases: readonly string[] | undefined = undefined;

  constructor(agentId: string, principal: Principal, requestedExtensions: readonly string[] = NO_EXTENSIONS) {
    this.agentId = agentId;
    this.principal = principal;
    this.requestedExtensions = requestedExtensions;
  }

  /** A context with more fields set, for the faces and callers off the hot path. */
  static of(agentId: string, principal: Principal, fields: CallFields = {}, requestedExtensions: readonly string[] = NO_EXTENSIONS): CallContext {
    const ctx = new CallContext(agentId, principal, requestedExtensions);
    if (fields.signal !== undefined) ctx.signal = fields.signal;
    if (fields.clientGone !== undefined) ctx.clientGone = fields.clientGone;
    if (fields.wireVersion !== undefined) ctx.wireVersion = fields.wireVersion;
    if (fields.clientTaskId !== undefined) ctx.clientTaskId = fields.clientTaskId;
    if (fields.partOfCall) ctx.partOfCall = true;
    if (fields.forwarded) ctx.forwarded = true;
    if (fields.messageIdMinted) ctx.messageIdMinted = true;
    if (fields.surface !== undefined) ctx.surface = fields.surface;
    if (fields.usage !== undefined) ctx.usage = fields.usage;
    if (fields.trace !== undefined) ctx.traced(fields.trace);
    if (fields.usecases !== undefined) ctx.authorized(fields.usecases);
    return ctx;
  }

  /** The surface stage: the surface the call came from and its usage draft. */
  onSurface(surface: 'a2a' | 'mcp', usage: UsageDraft | undefined): void {
    this.surface = surface;
    this.usage = usage;
  }

  /** The trace stage: the core operation's span context. */
  traced(trace: Context | undefined): void {
    (this as Writable).trace = trace;
  }

  /** The resolve stage: the agent (undefined: not registered) and, for a message, its skills. */
  resolved(agent: RegisteredAgent | undefined, skills: readonly string[] | undefined, skill: string | undefined): void {
    const w = this as Writable;
    w.agent = agent;
    w.skills = skills;
    w.skill = skill;
  }

  /** The authorize stage: the usecases whose data the caller may see (undefined: all). */
  authorized(usecases: readonly string[] | undefined): void {
    (this as Writable).usecases = usecases;
  }
}

type Writable = { -readonly [K in 'trace' | 'agent' | 'skills' | 'skill' | 'usecases']: CallContext[K] };
