/**
 * A minimal client for OpenAI-compatible chat completions (OpenAI, Azure OpenAI, vLLM, Ollama,
 * LM Studio all speak it): POST {baseUrl}/chat/completions with tools, streamed (server-sent
 * events of `chat.completion.chunk`) or not. Tool-call arguments arrive in pieces when streamed;
 * they are joined by the `index` of each call. The API key is never logged or echoed.
 */
import { injectTraceContext, inSpan, SpanKind, tracingOn, type Context } from '../../../observability/tracing/index.js';
import type { LlmOptions } from '../options.js';

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage = { role: 'system' | 'user'; content: string } | { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] } | { role: 'tool'; tool_call_id: string; content: string };

export interface ToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface ChatReply {
  content: string;
  toolCalls: ToolCall[];
  finishReason?: string;
  /** what the call cost, when the endpoint says (OpenAI's `usage`) */
  usage?: ModelUsage;
}

/** One model call's token usage, in the agent SDK's UsageReport shape. */
export interface ModelUsage {
  model?: string;
  promptTokens: number;
  completionTokens: number;
}

interface WireUsage {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
}

function usageOf(model: unknown, u: WireUsage | undefined | null): ModelUsage | undefined {
  if (!u || typeof u !== 'object') return undefined;
  const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.floor(n) : 0);
  return { ...(typeof model === 'string' && model !== '' ? { model } : {}), promptTokens: count(u.prompt_tokens), completionTokens: count(u.completion_tokens) };
}

export class LlmError extends Error {
  override readonly name = 'LlmError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** `trace`: with tracing on, the span the call is made in (the agent's run); the `chat` span is its child. */
export function chatCompletion(llm: LlmOptions, messages: ChatMessage[], opts: { tools?: ToolSpec[]; signal?: AbortSignal; trace?: Context | undefined } = {}): Promise<ChatReply> {
  if (!tracingOn()) return requestCompletion(llm, messages, opts);
  // OTel GenAI conventions: a client span `chat {model}`; the request carries its traceparent.
  const attributes = { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': llm.model };
  return inSpan(`chat ${llm.model}`, { kind: SpanKind.CLIENT, parent: opts.trace, attributes }, async (trace, span) => {
    const reply = await requestCompletion(llm, messages, { ...opts, trace });
    if (reply.usage) {
      span?.setAttribute('gen_ai.usage.input_tokens', reply.usage.promptTokens);
      span?.setAttribute('gen_ai.usage.output_tokens', reply.usage.completionTokens);
    }
    if (reply.finishReason) span?.setAttribute('gen_ai.response.finish_reasons', [reply.finishReason]);
    return reply;
  });
}

async function requestCompletion(llm: LlmOptions, messages: ChatMessage[], opts: { tools?: ToolSpec[]; signal?: AbortSignal; trace?: Context | undefined }): Promise<ChatReply> {
  const url = `${llm.baseUrl}/chat/completions${llm.apiVersion ? `?api-version=${encodeURIComponent(llm.apiVersion)}` : ''}`;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: llm.stream ? 'text/event-stream' : 'application/json', ...llm.headers };
  if (llm.apiKey) {
    if (llm.apiKeyHeader === 'api-key') headers['api-key'] = llm.apiKey;
    else headers.authorization = `Bearer ${llm.apiKey}`;
  }
  const body = {
    model: llm.model,
    messages,
    temperature: llm.temperature,
    stream: llm.stream,
    // The last chunk then carries the call's token usage (OpenAI; compatible servers ignore or honour it).
    ...(llm.stream ? { stream_options: { include_usage: true } } : {}),
    ...(opts.tools?.length ? { tools: opts.tools, tool_choice: 'auto' } : {}),
  };
  injectTraceContext(opts.trace, headers);
  const signals = [AbortSignal.timeout(llm.timeoutMs), ...(opts.signal ? [opts.signal] : [])];
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.any(signals) });
  } catch (e) {
    const timedOut = (e as Error).name === 'TimeoutError';
    throw new LlmError(timedOut ? `the model did not answer within ${llm.timeoutMs} ms` : `the model endpoint could not be reached (${(e as Error).message})`);
  }
  if (!res.ok) {
    const text = (await res.text().catch(() => '')).slice(0, 300).replace(/\s+/g, ' ');
    throw new LlmError(`the model endpoint answered HTTP ${res.status}${text ? `: ${text}` : ''}`, res.status);
  }
  const type = res.headers.get('content-type') ?? '';
  try {
    return type.includes('text/event-stream') ? await readStream(res) : readJson(await readLimited(res));
  } catch (e) {
    if (e instanceof LlmError) throw e;
    throw new LlmError(`the model's reply could not be read (${(e as Error).message})`);
  }
}

async function readLimited(res: Response): Promise<string> {
  const text = await res.text();
  if (text.length > MAX_RESPONSE_BYTES) throw new LlmError('the model reply is too large');
  return text;
}

interface WireMessage {
  content?: string | null;
  tool_calls?: Array<{ id?: string; index?: number; type?: string; function?: { name?: string; arguments?: string } }>;
}

function readJson(text: string): ChatReply {
  const json = JSON.parse(text) as { model?: unknown; usage?: WireUsage; choices?: Array<{ message?: WireMessage; finish_reason?: string }> };
  const choice = json.choices?.[0];
  if (!choice?.message) throw new LlmError('the model reply has no choices[0].message');
  const usage = usageOf(json.model, json.usage);
  return {
    ...(usage ? { usage } : {}),
    content: choice.message.content ?? '',
    toolCalls: (choice.message.tool_calls ?? []).map((c, i) => ({ id: c.id ?? `call_${i}`, type: 'function', function: { name: c.function?.name ?? '', arguments: c.function?.arguments ?? '' } })),
    ...(choice.finish_reason ? { finishReason: choice.finish_reason } : {}),
  };
}

async function readStream(res: Response): Promise<ChatReply> {
  if (!res.body) throw new LlmError('the model stream has no body');
  const decoder = new TextDecoder();
  let buffer = '';
  let bytes = 0;
  let content = '';
  let finishReason: string | undefined;
  let usage: ModelUsage | undefined;
  const calls = new Map<number, ToolCall>();
  const onData = (data: string): boolean => {
    if (data === '[DONE]') return true;
    const chunk = JSON.parse(data) as { model?: unknown; usage?: WireUsage | null; choices?: Array<{ delta?: WireMessage; finish_reason?: string | null }> };
    usage = usageOf(chunk.model, chunk.usage) ?? usage;
    const choice = chunk.choices?.[0];
    if (!choice) return false;
    if (choice.delta?.content) content += choice.delta.content;
    for (const [n, tc] of (choice.delta?.tool_calls ?? []).entries()) {
      const index = tc.index ?? n;
      const call = calls.get(index) ?? { id: tc.id ?? `call_${index}`, type: 'function' as const, function: { name: '', arguments: '' } };
      if (tc.id) call.id = tc.id;
      if (tc.function?.name) call.function.name += tc.function.name;
      if (tc.function?.arguments) call.function.arguments += tc.function.arguments;
      calls.set(index, call);
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
    return false;
  };
  const reader = res.body.getReader();
  let done = false;
  while (!done) {
    const { value, done: end } = await reader.read();
    if (end) break;
    bytes += value.byteLength;
    if (bytes > MAX_RESPONSE_BYTES) {
      await reader.cancel();
      throw new LlmError('the model reply is too large');
    }
    buffer += decoder.decode(value, { stream: true });
    let m: RegExpExecArray | null;
    while ((m = /\r?\n\r?\n/.exec(buffer))) {
      const block = buffer.slice(0, m.index);
      buffer = buffer.slice(m.index + m[0].length);
      const data = block
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      if (data && onData(data)) {
        done = true;
        break;
      }
    }
  }
  if (done) await reader.cancel().catch(() => {});
  return { content, toolCalls: [...calls.entries()].sort((a, b) => a[0] - b[0]).map(([, c]) => c), ...(finishReason ? { finishReason } : {}), ...(usage ? { usage } : {}) };
}
