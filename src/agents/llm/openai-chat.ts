/**
 * OpenAI Chat Completions, streamed (`POST {baseUrl}/chat/completions`, `stream: true`): text
 * arrives as `choices[0].delta.content`, tool calls as `delta.tool_calls[]` pieces joined by their
 * `index` (id and name in the first piece, `function.arguments` in slices), a refusal as
 * `delta.refusal`, and — with `stream_options.include_usage` — a last chunk with empty `choices`
 * and the call's `usage`. Any OpenAI-compatible server (Azure OpenAI, vLLM, Ollama, LM Studio)
 * speaks the same.
 */
import type { LlmAgentConfig } from '../../config/config.js';
import { ModelError, type ModelProvider, type ModelRequest, type ModelStep, type StreamCallbacks, type ToolCall, type Turn } from './model.js';
import { errorMessageOf, postForStream } from './model-http.js';
import { readSse } from './sse.js';

const MAX_STREAM_BYTES = 16 * 1024 * 1024;

type WireMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> }
  | { role: 'tool'; tool_call_id: string; content: string };

interface Chunk {
  model?: string;
  choices?: Array<{
    index?: number;
    delta?: { content?: string | null; refusal?: string | null; tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }> };
    finish_reason?: string | null;
  }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } } | null;
  error?: { message?: string };
}

export function openAiChat(cfg: LlmAgentConfig, sleep?: (ms: number, signal: AbortSignal) => Promise<void>): ModelProvider {
  return {
    name: 'openai',
    async stream(request: ModelRequest, cb: StreamCallbacks): Promise<ModelStep> {
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream', ...cfg.headers };
      if (cfg.apiKey) headers.authorization = `Bearer ${cfg.apiKey}`;
      const body = {
        model: cfg.model,
        messages: toWire(request.system, request.turns),
        stream: true,
        stream_options: { include_usage: true },
        max_completion_tokens: cfg.maxOutputTokens,
        ...(cfg.temperature !== undefined ? { temperature: cfg.temperature } : {}),
        ...(request.tools.length
          ? { tools: request.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })), tool_choice: 'auto', parallel_tool_calls: true }
          : {}),
      };
      const { res, signal } = await postForStream({
        url: `${cfg.baseUrl}/chat/completions`,
        headers,
        body,
        signal: cb.signal,
        timeoutMs: cfg.callTimeoutMs,
        maxRetries: cfg.maxRetries,
        classify,
        ...(sleep ? { sleep } : {}),
      });
      if (!res.body) throw new ModelError('bad_response', 'the model answer has no body');
      return readChunks(res.body, signal, cb);
    },
  };
}

function toWire(system: string, turns: readonly Turn[]): WireMessage[] {
  const out: WireMessage[] = [{ role: 'system', content: system }];
  for (const t of turns) {
    if (t.role === 'user') out.push({ role: 'user', content: t.text });
    else if (t.role === 'assistant')
      out.push({
        role: 'assistant',
        content: t.text || null,
        ...(t.toolCalls.length ? { tool_calls: t.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) } : {}),
      });
    else for (const r of t.results) out.push({ role: 'tool', tool_call_id: r.callId, content: r.content });
  }
  return out;
}

async function readChunks(body: ReadableStream<Uint8Array>, signal: AbortSignal, cb: StreamCallbacks): Promise<ModelStep> {
  let text = '';
  let refusal = '';
  let finishReason = '';
  let model: string | undefined;
  const usage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };
  const calls = new Map<number, { id: string; name: string; args: string }>();
  try {
    for await (const ev of readSse(body, MAX_STREAM_BYTES)) {
      if (ev.data === '[DONE]') break;
      const chunk = JSON.parse(ev.data) as Chunk;
      if (chunk.error) throw new ModelError('unavailable', `the model stream failed: ${errorMessageOf(chunk)}`);
      if (typeof chunk.model === 'string' && chunk.model) model = chunk.model;
      if (chunk.usage) {
        usage.promptTokens = count(chunk.usage.prompt_tokens);
        usage.completionTokens = count(chunk.usage.completion_tokens);
        usage.cachedTokens = count(chunk.usage.prompt_tokens_details?.cached_tokens);
      }
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = choice.delta;
      if (delta?.content) {
        text += delta.content;
        cb.onText(delta.content);
      }
      if (delta?.refusal) refusal += delta.refusal;
      for (const [n, piece] of (delta?.tool_calls ?? []).entries()) {
        const index = piece.index ?? n;
        const call = calls.get(index) ?? { id: '', name: '', args: '' };
        if (piece.id) call.id = piece.id;
        if (piece.function?.name) call.name += piece.function.name;
        if (piece.function?.arguments) call.args += piece.function.arguments;
        calls.set(index, call);
      }
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
  } catch (e) {
    if (e instanceof ModelError) throw e;
    if (signal.aborted && (signal.reason as Error | undefined)?.name === 'TimeoutError') throw new ModelError('timeout', 'the model did not finish its answer in time');
    if (signal.aborted) throw e;
    throw new ModelError('bad_response', 'the model stream could not be read');
  }
  if (refusal) throw new ModelError('refusal', `the model refused: ${refusal.slice(0, 300)}`);
  if (finishReason === 'content_filter') throw new ModelError('refusal', "the model's answer was withheld by the provider's content filter");
  const toolCalls: ToolCall[] = [...calls.entries()].sort((a, b) => a[0] - b[0]).map(([i, c]) => ({ id: c.id || `call_${i}`, name: c.name, arguments: parseArguments(c.args) }));
  return { text, toolCalls, finishReason: finishReason || 'stop', usage, ...(model ? { model } : {}) };
}

/** Arguments the model wrote; an unparsable string is kept whole so the tool can say what is wrong. */
export function parseArguments(json: string): Record<string, unknown> {
  if (!json.trim()) return {};
  try {
    const v: unknown = JSON.parse(json);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };
  } catch {
    return { unparsed: json };
  }
}

function count(n: unknown): number {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

/** OpenAI's error codes: `context_length_exceeded` (400); anything else 4xx is a rejected request. */
function classify(status: number, body: unknown): ModelError {
  const code = (body as { error?: { code?: unknown } } | undefined)?.error?.code;
  const message = errorMessageOf(body);
  if (code === 'context_length_exceeded' || /maximum context length|context window|too many tokens/i.test(message)) {
    return new ModelError('context_length', "the conversation no longer fits the model's context window", status);
  }
  if (status === 401 || status === 403) return new ModelError('rejected', `the model endpoint refused the credentials (HTTP ${status})`, status);
  return new ModelError('rejected', `the model endpoint rejected the request (HTTP ${status}${message ? `: ${message}` : ''})`, status);
}
