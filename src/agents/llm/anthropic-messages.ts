/**
 * Anthropic Messages, streamed (`POST {baseUrl}/messages`, `stream: true`): `message_start`
 * carries the input usage, each content block opens with `content_block_start` (a `text` block, or
 * a `tool_use` block with its id and name), grows by `content_block_delta` (`text_delta`, or
 * `input_json_delta` slices of the tool input) and ends with `content_block_stop`; `message_delta`
 * brings the stop reason and the output usage; an `error` event ends a failed stream.
 */
import type { LlmAgentConfig } from '../../config/config.js';
import { ModelError, type ModelProvider, type ModelRequest, type ModelStep, type StreamCallbacks, type Turn } from './model.js';
import { errorMessageOf, postForStream } from './model-http.js';
import { parseArguments } from './openai-chat.js';
import { readSse } from './sse.js';

const MAX_STREAM_BYTES = 16 * 1024 * 1024;
/** The Messages API version this client speaks (sent as `anthropic-version`). */
export const ANTHROPIC_VERSION = '2023-06-01';

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> } | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean };
interface WireMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

interface StreamEvent {
  type?: string;
  index?: number;
  message?: { model?: string; usage?: WireUsage };
  content_block?: { type?: string; id?: string; name?: string; text?: string };
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null };
  usage?: WireUsage;
  error?: { type?: string; message?: string };
}
interface WireUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

export function anthropicMessages(cfg: LlmAgentConfig, sleep?: (ms: number, signal: AbortSignal) => Promise<void>): ModelProvider {
  return {
    name: 'anthropic',
    async stream(request: ModelRequest, cb: StreamCallbacks): Promise<ModelStep> {
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream', 'anthropic-version': ANTHROPIC_VERSION, ...cfg.headers };
      if (cfg.apiKey) headers['x-api-key'] = cfg.apiKey;
      const body = {
        model: cfg.model,
        max_tokens: cfg.maxOutputTokens,
        system: request.system,
        messages: toWire(request.turns),
        stream: true,
        ...(cfg.temperature !== undefined ? { temperature: Math.min(1, cfg.temperature) } : {}),
        ...(request.tools.length ? { tools: request.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })) } : {}),
      };
      const { res, signal } = await postForStream({ url: `${cfg.baseUrl}/messages`, headers, body, signal: cb.signal, timeoutMs: cfg.callTimeoutMs, maxRetries: cfg.maxRetries, classify, ...(sleep ? { sleep } : {}) });
      if (!res.body) throw new ModelError('bad_response', 'the model answer has no body');
      return readEvents(res.body, signal, cb);
    },
  };
}

/** Messages alternate user/assistant: tool results ride in the user turn after the tool calls. */
function toWire(turns: readonly Turn[]): WireMessage[] {
  const out: WireMessage[] = [];
  const push = (role: WireMessage['role'], blocks: Block[]) => {
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const t of turns) {
    if (t.role === 'user') push('user', [{ type: 'text', text: t.text }]);
    else if (t.role === 'assistant')
      push('assistant', [...(t.text ? [{ type: 'text' as const, text: t.text }] : []), ...t.toolCalls.map((c) => ({ type: 'tool_use' as const, id: c.id, name: c.name, input: c.arguments }))]);
    else
      push(
        'user',
        t.results.map((r) => ({ type: 'tool_result' as const, tool_use_id: r.callId, content: r.content, ...(r.isError ? { is_error: true } : {}) })),
      );
  }
  return out;
}

async function readEvents(body: ReadableStream<Uint8Array>, signal: AbortSignal, cb: StreamCallbacks): Promise<ModelStep> {
  let text = '';
  let stopReason = '';
  let model: string | undefined;
  const usage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0, cacheWriteTokens: 0 };
  const blocks = new Map<number, { kind: 'text' } | { kind: 'tool_use'; id: string; name: string; json: string }>();
  const takeUsage = (u: WireUsage | undefined) => {
    if (!u) return;
    // Input counts the uncached, cache-written and cache-read tokens alike: all were prompt.
    const input = count(u.input_tokens) + count(u.cache_creation_input_tokens) + count(u.cache_read_input_tokens);
    if (u.input_tokens !== undefined) usage.promptTokens = Math.max(usage.promptTokens, input);
    if (u.cache_read_input_tokens !== undefined) usage.cachedTokens = count(u.cache_read_input_tokens);
    if (u.cache_creation_input_tokens !== undefined) usage.cacheWriteTokens = count(u.cache_creation_input_tokens);
    if (u.output_tokens !== undefined) usage.completionTokens = Math.max(usage.completionTokens, count(u.output_tokens));
  };
  let ended = false;
  try {
    for await (const ev of readSse(body, MAX_STREAM_BYTES)) {
      const e = JSON.parse(ev.data) as StreamEvent;
      switch (e.type) {
        case 'message_start':
          if (typeof e.message?.model === 'string') model = e.message.model;
          takeUsage(e.message?.usage);
          break;
        case 'content_block_start':
          if (e.content_block?.type === 'tool_use') blocks.set(e.index ?? 0, { kind: 'tool_use', id: e.content_block.id ?? '', name: e.content_block.name ?? '', json: '' });
          else if (e.content_block?.type === 'text') {
            blocks.set(e.index ?? 0, { kind: 'text' });
            if (e.content_block.text) {
              text += e.content_block.text;
              cb.onText(e.content_block.text);
            }
          }
          break;
        case 'content_block_delta': {
          const block = blocks.get(e.index ?? 0);
          if (e.delta?.type === 'text_delta' && e.delta.text) {
            text += e.delta.text;
            cb.onText(e.delta.text);
          } else if (e.delta?.type === 'input_json_delta' && block?.kind === 'tool_use') block.json += e.delta.partial_json ?? '';
          break;
        }
        case 'message_delta':
          if (e.delta?.stop_reason) stopReason = e.delta.stop_reason;
          takeUsage(e.usage);
          break;
        case 'message_stop':
          ended = true;
          break;
        case 'error':
          throw e.error?.type === 'overloaded_error' ? new ModelError('unavailable', 'the model is overloaded; try again later') : new ModelError('unavailable', `the model stream failed: ${errorMessageOf(e)}`);
        default:
          // ping, content_block_stop, and event types added later
          break;
      }
      if (ended) break;
    }
  } catch (e) {
    if (e instanceof ModelError) throw e;
    if (signal.aborted && (signal.reason as Error | undefined)?.name === 'TimeoutError') throw new ModelError('timeout', 'the model did not finish its answer in time');
    if (signal.aborted) throw e;
    throw new ModelError('bad_response', 'the model stream could not be read');
  }
  if (stopReason === 'refusal') throw new ModelError('refusal', 'the model declined to answer (stop_reason refusal)');
  if (stopReason === 'model_context_window_exceeded') throw new ModelError('context_length', "the conversation no longer fits the model's context window");
  const toolCalls = [...blocks.entries()].sort((a, b) => a[0] - b[0]).flatMap(([, b]) => (b.kind === 'tool_use' ? [{ id: b.id, name: b.name, arguments: parseArguments(b.json) }] : []));
  return { text, toolCalls, finishReason: stopReason || 'end_turn', usage, ...(model ? { model } : {}) };
}

function count(n: unknown): number {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

/** Anthropic says "prompt is too long" in a 400 invalid_request_error. */
function classify(status: number, body: unknown): ModelError {
  const message = errorMessageOf(body);
  if (/prompt is too long|context window|too many tokens/i.test(message)) return new ModelError('context_length', "the conversation no longer fits the model's context window", status);
  if (status === 401 || status === 403) return new ModelError('rejected', `the model endpoint refused the credentials (HTTP ${status})`, status);
  return new ModelError('rejected', `the model endpoint rejected the request (HTTP ${status}${message ? `: ${message}` : ''})`, status);
}
