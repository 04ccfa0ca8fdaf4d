/**
 * The conversation as the loop keeps it, in no provider's format: each provider (openai-chat.ts,
 * anthropic-messages.ts) turns it into its own wire request and its streamed answer back into one
 * ModelStep. The loop never sees a wire format; a provider never sees a task.
 */

export interface ToolCall {
  /** the provider's id of the call (`call_…`, `toolu_…`), echoed with its result */
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface ToolResult {
  callId: string;
  name: string;
  /** already wrapped as data and size-capped (tool-result-text.ts) */
  content: string;
  isError: boolean;
}

export type Turn = { role: 'user'; text: string } | { role: 'assistant'; text: string; toolCalls: ToolCall[] } | { role: 'tool'; results: ToolResult[] };

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object schema) */
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  system: string;
  turns: readonly Turn[];
  tools: readonly ToolDefinition[];
}

export interface ModelUsage {
  promptTokens: number;
  completionTokens: number;
  /** of promptTokens, those served from the provider's cache (OpenAI cached_tokens, Anthropic cache reads) */
  cachedTokens: number;
  /** of promptTokens, those written to the provider's cache (Anthropic cache_creation_input_tokens; absent: none) */
  cacheWriteTokens?: number;
}

/** One model call's answer, once its stream ended. */
export interface ModelStep {
  text: string;
  toolCalls: ToolCall[];
  /** the provider's reason, as it says it (`stop`, `tool_calls`, `end_turn`, `tool_use`, `length`, `max_tokens`) */
  finishReason: string;
  usage: ModelUsage;
  /** the model that answered, as the provider names it */
  model?: string;
}

export interface StreamCallbacks {
  signal: AbortSignal;
  /** each piece of text as it arrives */
  onText(delta: string): void;
}

export interface ModelProvider {
  readonly name: 'openai' | 'anthropic';
  stream(request: ModelRequest, cb: StreamCallbacks): Promise<ModelStep>;
}

/** Why a model call failed, in words a task's caller can read (never the API key, never a stack). */
export type ModelErrorKind = 'context_length' | 'refusal' | 'rate_limited' | 'unavailable' | 'rejected' | 'bad_response' | 'timeout';

export class ModelError extends Error {
  override readonly name = 'ModelError';
  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}
