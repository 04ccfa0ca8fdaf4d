/**
 * The contract between the engine and an agent: a card plus an executor that turns a request
 * context into events. The core runs agents through this contract; agent authors get it from the
 * SDK (src/agents/sdk), which re-exports it with `defineAgent`.
 */
import type { AgentCardSpec } from '../../protocol/a2a/card/agent-card-spec.js';
import type { Context } from '../../observability/tracing/index.js';
import type { AgentToolResult } from '../../protocol/a2a/tool-call.js';
import type { AgentCard, Artifact, JsonObject, Message, Part, SendMessageRequest, StreamResponse, Task, TaskState } from '../../protocol/a2a/types.js';

/** What an executor may emit; the engine fills in taskId/contextId/timestamps/ids it omits. */
export type AgentEvent =
  | { kind: 'message'; message: Omit<Message, 'role' | 'messageId'> & Partial<Pick<Message, 'messageId'>> }
  | { kind: 'status'; state: TaskState; message?: Part[] | string; metadata?: JsonObject }
  | {
      kind: 'artifact';
      artifact: Omit<Artifact, 'artifactId'> & Partial<Pick<Artifact, 'artifactId'>>;
      append?: boolean;
      lastChunk?: boolean;
      metadata?: JsonObject;
    };

export interface AgentContext {
  readonly agentId: string;
  readonly taskId: string;
  readonly contextId: string;
  /**
   * The key for anything an agent remembers per conversation. A context belongs to the caller who
   * started it: two callers who send the same contextId hold two conversations, so state kept
   * under `contextId` alone would leak one caller's conversation into another's. Opaque.
   */
  readonly conversationKey: string;
  /** the message that started this run */
  readonly message: Message;
  /** the task as it stands, when this message continues an existing task */
  readonly task?: Task;
  /** tasks named in message.referenceTaskIds that the caller can see */
  readonly referenceTasks: Task[];
  /** aborted when the task is canceled (or the server shuts down) */
  readonly signal: AbortSignal;
  /** extensions the client activated that this agent declares */
  readonly activatedExtensions: readonly string[];
  readonly acceptedOutputModes: readonly string[];
  /** request metadata from SendMessageRequest.metadata */
  readonly requestMetadata?: JsonObject;
  /**
   * The usecases whose data the caller may see (its credential's binding, src/core/authz);
   * undefined = every usecase. Agents holding data of several usecases show only these.
   */
  readonly usecases?: readonly string[];
  /**
   * Whom the run acts for: the credential of the call that started it (its subject, usecase,
   * scopes, OAuth client). Undefined when no call started the run (a resumed task). Agents that
   * reach a remote as the caller sign this identity (docs/auth.md "Acting as the caller"); the
   * caller's own token is never here.
   */
  readonly caller?: { readonly principal: { readonly subject: string; readonly scopes: readonly string[]; readonly usecase?: string; readonly clientId?: string } } | undefined;
  /**
   * True when this run resumes a task whose executor was lost with its replica (only for agents
   * declaring `resumable`): `task` is the task as it stands, `message` the last user message.
   */
  readonly resumed?: boolean;
  /**
   * With tracing on, the context of this run's span (`invoke_agent`): pass it to outbound calls
   * (a guarded fetch's `trace`, a client call's `traceparent` header) so they continue the trace.
   * Undefined with tracing off.
   */
  readonly trace?: Context | undefined;

  /** The user message's text parts joined by newlines. */
  text(): string;
  /** Emits any event (the full model). */
  emit(event: AgentEvent): void;
  /** Replies with a direct Message; no task is tracked. Must be the only event of the run. */
  reply(content: string | Part[]): void;
  /** Moves the task to WORKING, optionally with a status message. */
  working(message?: string | Part[]): void;
  /** Adds or extends an artifact. Returns its artifactId for later chunks. */
  artifact(parts: string | Part[], opts?: { artifactId?: string; name?: string; description?: string; append?: boolean; lastChunk?: boolean; metadata?: JsonObject }): string;
  /** Ends the task COMPLETED, optionally with a status message. */
  complete(message?: string | Part[]): void;
  /** Ends the task FAILED with a reason shown to the client. */
  fail(reason: string): void;
  /** Ends the task REJECTED with a reason shown to the client. */
  reject(reason: string): void;
  /** Pauses the task in INPUT_REQUIRED with a question. */
  askInput(question: string | Part[]): void;
  /** Pauses the task in AUTH_REQUIRED with an explanation. */
  requireAuth(explanation: string | Part[]): void;
  /** Resolves after `ms` or rejects when the task is canceled. */
  sleep(ms: number): Promise<void>;
  /**
   * Waits for the next user message sent to this task while the executor is running
   * (e.g. after AUTH_REQUIRED, where the stream stays open). Rejects when canceled.
   */
  nextMessage(): Promise<Message>;
  /**
   * Fencing for side effects (distributed mode): resolves true when this executor still holds its
   * task's lease, extending it; false when another replica has taken the task (its lease expired
   * while this one was paused or cut off from the database, or a cancel there), when ownership cannot
   * be confirmed (the database is unreachable), or when the run was canceled. On false the executor
   * is stopped; it must not perform the side effect. In embedded mode: false only once canceled.
   * Call it right before an external action that must not happen twice (docs/agents.md).
   */
  stillOwner(): Promise<boolean>;
  /**
   * The other agents of this server, called through the core as this task's caller (its principal,
   * scopes and usecase): authorized, counted in quotas, recorded in usage and audit like the
   * caller's own calls. Absent where the engine offers none (a bare test harness).
   */
  readonly agents?: HostedAgents;
  /**
   * Reports LLM usage of this run (call it once per model call, with that call's tokens): it is
   * added to the task's usage record, and priced by `agents[].skills[id].cost` (docs/usage.md).
   */
  reportUsage(usage: UsageReport): void;
}

/** A hosted agent as a caller may see it: its public card and what it knows of its skills' arguments. */
export interface HostedAgentView {
  readonly id: string;
  readonly card: AgentCard;
  /** JSON Schema of a skill's arguments, when the agent knows one (a remote MCP server's tool) */
  inputSchema(skillId: string): Record<string, unknown> | undefined;
}

/** AgentContext.agents: sub-tasks on other hosted agents, on behalf of the task's caller. */
export interface HostedAgents {
  /** the agent as the caller may see it; undefined when it does not exist for the caller */
  get(agentId: string): HostedAgentView | undefined;
  /**
   * SendStreamingMessage to a hosted agent as the caller. The message carries the parent task in
   * its metadata (`agentport/parentTaskId`), so the sub-task is linked to this one. Errors are the
   * core's (A2AError: PermissionDenied, TaskNotFound for an agent the caller cannot see, …).
   */
  sendStreamingMessage(agentId: string, request: SendMessageRequest, opts?: { signal?: AbortSignal; trace?: Context | undefined }): AsyncIterable<StreamResponse>;
  /** CancelTask on a sub-task, as the caller */
  cancelTask(agentId: string, taskId: string): Promise<void>;
}

/** Message metadata linking a sub-task to the task whose run created it. */
export const PARENT_TASK_METADATA_KEY = 'agentport/parentTaskId';

/** One model call's usage, as an agent reports it; or whom the run acts as at a remote. */
export interface UsageReport {
  /** the model's name, as the provider calls it */
  model?: string;
  /** every prompt token, those from or into the prompt cache included */
  promptTokens?: number;
  completionTokens?: number;
  /** of promptTokens, those read from the provider's prompt cache */
  cachedTokens?: number;
  /** of promptTokens, those written to the provider's prompt cache (Anthropic) */
  cacheWriteTokens?: number;
  /**
   * Whom the run acts as at a remote it calls for the user (issue 27): the user's subject there,
   * never a token. Kept on the usage record (`remoteSubject`); the last one reported wins.
   */
  remoteSubject?: string;
  /** who vouches for `remoteSubject` (the remote's authorization server, or Agentport's own issuer) */
  remoteIssuer?: string;
}

export interface AgentDefinition {
  card: AgentCardSpec;
  execute(ctx: AgentContext): Promise<void> | void;
  /**
   * Whether the agent can pick up a task whose executor died with its replica (distributed mode).
   * A resumable agent's orphaned task is re-run with `ctx.resumed`; any other is failed with a reason.
   */
  resumable?: boolean;
  /**
   * Which of the card's skills a message asks for, when the agent can tell (authorization checks
   * that skill's scopes before the task starts). Absent, or undefined for a message: every
   * skill's scopes are required, since the agent may use any of them.
   */
  skillOf?(message: Message): string | undefined;
  /** JSON Schema of a skill's arguments, when the agent knows one (a remote MCP server's tool's inputSchema). */
  skillInputSchema?(skillId: string): Record<string, unknown> | undefined;
  /** Releases what the agent holds (connections, timers) when the server stops. */
  close?(): Promise<void>;
  /**
   * For agents whose card comes from elsewhere (a remote MCP server's tools): calls `listener`
   * after `card` changed, and the server registers the agent again with the new card.
   */
  onCardChange?(listener: () => void): void;
  /**
   * MCP tool hints the agent knows for a skill (a remote MCP server's tool annotations); the
   * config's `agents[].skills[id].annotations` override them hint by hint.
   */
  toolAnnotations?(skillId: string): { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean } | undefined;
  /**
   * MCP tools and pages of the agent's own, beside one tool per skill (agents/sdk/mcp-tools.ts).
   * Their calls run as tasks of this agent; `defineAgent` routes them to the tools.
   */
  mcp?: AgentMcp;
}

// What an agent contributes to the MCP face beyond one tool per skill (agents/sdk/mcp-tools.ts):
// part of the contract, since the face reads it from the registered definition.

export interface AgentToolHints {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What the face tells a tool besides its arguments. */
export interface AgentToolCall {
  /** the URL of the page showing `item` (`GET {agent base URL}/items/{item}`) */
  pageUrl(item: string): string;
}

export interface AgentTool {
  /** the MCP tool name, as clients see it (`[A-Za-z0-9_.-]`, at most 64 characters) */
  name: string;
  title?: string;
  description: string;
  /** JSON Schema of the arguments; the face validates a call against it before a task starts */
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: AgentToolHints;
  /**
   * The card skills the tool reaches: `tools/list` shows it only to callers who may use all of
   * them, and the task is authorized for the one `skillFor` names (else the only one listed).
   */
  skills: readonly string[];
  skillFor?(args: JsonObject): string | undefined;
  /** Runs inside the task. Failures the caller should read are `isError` results; a throw fails the task. */
  call(args: JsonObject, ctx: AgentContext, call: AgentToolCall): Promise<AgentToolResult> | AgentToolResult;
}

/** A page for a person following an item `url` of a tool result. */
export interface AgentPage {
  status: number;
  contentType: string;
  body: string;
}

export interface AgentPageRequest {
  /** the request's Accept header */
  accept?: string;
  /** the agent's name as its public card shows it */
  agentName: string;
  /** the usecases whose data the caller may see (src/core/authz); undefined = all */
  usecases?: readonly string[];
}

export interface AgentMcp {
  tools?: readonly AgentTool[];
  /** a sentence added to the MCP server's instructions when the agent is in scope */
  instructions?: string;
  /** serves `GET {agent base URL}/items/{item}`; absent: the agent has no pages */
  page?(item: string, req: AgentPageRequest): Promise<AgentPage>;
}

export function toParts(content: string | Part[]): Part[] {
  return typeof content === 'string' ? [{ text: content }] : content;
}
