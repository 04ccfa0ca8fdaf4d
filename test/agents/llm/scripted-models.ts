/**
 * Scripted model endpoints on loopback that speak each provider's streaming wire format as the
 * providers document it: OpenAI Chat Completions (`chat.completion.chunk` server-sent events,
 * tool-call deltas split by `index`, the usage chunk of `stream_options.include_usage`, `[DONE]`)
 * and Anthropic Messages (`message_start`, `content_block_start/delta/stop` with `text_delta` and
 * `input_json_delta`, `message_delta` with the stop reason and usage, `message_stop`). A script
 * reads each request (what the loop sent) and says what the model answers.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  headers: IncomingMessage['headers'];
  body: any;
  /** the tool results the request carries, in order, as the provider shapes them */
  toolResults: Array<{ id: string; content: string }>;
  /** the text of the last user message (not tool results) */
  lastUserText: string;
}

export type Answer =
  | {
      text?: string;
      toolCalls?: Array<{ name: string; arguments: Record<string, unknown> }>;
      /** every prompt token, cached or not (Anthropic's input_tokens is then the uncached rest) */
      promptTokens?: number;
      completionTokens?: number;
      /** prompt tokens read from the provider's prompt cache */
      cachedTokens?: number;
      /** prompt tokens written to Anthropic's prompt cache (OpenAI has no such count) */
      cacheWriteTokens?: number;
    }
  | { status: number; headers?: Record<string, string>; body: unknown };

export class ScriptedModel {
  readonly requests: SeenRequest[] = [];
  private server: Server;
  /** answers before the script runs, taken in order (errors to retry, held streams) */
  readonly queued: Answer[] = [];
  /** when set, the next streamed answer sends its first chunk and then waits for this */
  hold?: Promise<void>;
  /** resolves when a held answer has sent its first chunk */
  held?: () => void;
  /** when it matches a request (once), that answer stalls after its first chunks until the server closes: a crash mid-stream */
  stallOnce?: (r: SeenRequest) => boolean;
  /** resolves when a stalled answer has sent its first chunks */
  stalled?: () => void;
  private calls = 0;

  constructor(
    readonly provider: 'openai' | 'anthropic',
    private readonly script: (r: SeenRequest) => Answer,
  ) {
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.provider === 'openai' ? `${base}/v1` : `${base}/v1`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const path = this.provider === 'openai' ? '/v1/chat/completions' : '/v1/messages';
    if (req.method !== 'POST' || req.url !== path) {
      res.writeHead(404).end();
      return;
    }
    const seen = this.provider === 'openai' ? readOpenAi(req.headers, body) : readAnthropic(req.headers, body);
    this.requests.push(seen);
    const answer = this.queued.shift() ?? this.script(seen);
    if ('status' in answer) {
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.body));
      return;
    }
    this.calls++;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const events = this.provider === 'openai' ? openAiEvents(answer, this.calls) : anthropicEvents(answer, this.calls);
    const stall = this.stallOnce?.(seen) === true;
    if (stall) this.stallOnce = undefined;
    for (const [i, e] of events.entries()) {
      if (res.destroyed) return;
      if (stall && i === 2) {
        this.stalled?.();
        return;
      }
      res.write(e);
      if (i === 1 && this.hold) {
        const hold = this.hold;
        this.hold = undefined;
        this.held?.();
        await hold;
      }
    }
    res.end();
  }
}

function readOpenAi(headers: IncomingMessage['headers'], body: any): SeenRequest {
  const messages: any[] = body.messages ?? [];
  const users = messages.filter((m) => m.role === 'user');
  return {
    headers,
    body,
    toolResults: messages.filter((m) => m.role === 'tool').map((m) => ({ id: m.tool_call_id, content: m.content })),
    lastUserText: users.length ? String(users[users.length - 1].content) : '',
  };
}

function readAnthropic(headers: IncomingMessage['headers'], body: any): SeenRequest {
  const blocks: any[] = (body.messages ?? []).filter((m: any) => m.role === 'user').flatMap((m: any) => m.content);
  const texts = blocks.filter((b) => b.type === 'text');
  return {
    headers,
    body,
    toolResults: blocks.filter((b) => b.type === 'tool_result').map((b) => ({ id: b.tool_use_id, content: b.content })),
    lastUserText: texts.length ? texts[texts.length - 1].text : '',
  };
}

const sse = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
const named = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const slices = (s: string, n: number) => {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n));
  return out;
};

function openAiEvents(a: Exclude<Answer, { status: number }>, n: number): string[] {
  const base = { id: `chatcmpl-${n}`, object: 'chat.completion.chunk', created: 1_764_000_000, model: 'gpt-scripted', system_fingerprint: 'fp_test' };
  const out = [sse({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] })];
  for (const piece of slices(a.text ?? '', 5)) out.push(sse({ ...base, choices: [{ index: 0, delta: { content: piece }, logprobs: null, finish_reason: null }] }));
  for (const [i, c] of (a.toolCalls ?? []).entries()) {
    out.push(sse({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: i, id: `call_${n}_${i}`, type: 'function', function: { name: c.name, arguments: '' } }] }, logprobs: null, finish_reason: null }] }));
    for (const piece of slices(JSON.stringify(c.arguments), 7))
      out.push(sse({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: i, function: { arguments: piece } }] }, logprobs: null, finish_reason: null }] }));
  }
  out.push(sse({ ...base, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: a.toolCalls?.length ? 'tool_calls' : 'stop' }] }));
  const prompt = a.promptTokens ?? 100;
  const completion = a.completionTokens ?? 20;
  out.push(sse({ ...base, choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: a.cachedTokens ?? 0 } } }));
  out.push('data: [DONE]\n\n');
  return out;
}

function anthropicEvents(a: Exclude<Answer, { status: number }>, n: number): string[] {
  const prompt = a.promptTokens ?? 100;
  const completion = a.completionTokens ?? 20;
  const out = [
    named('message_start', {
      type: 'message_start',
      message: {
        id: `msg_${n}`,
        type: 'message',
        role: 'assistant',
        content: [],
        model: 'claude-scripted',
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: prompt - (a.cachedTokens ?? 0) - (a.cacheWriteTokens ?? 0),
          cache_creation_input_tokens: a.cacheWriteTokens ?? 0,
          cache_read_input_tokens: a.cachedTokens ?? 0,
          output_tokens: 1,
        },
      },
    }),
    named('ping', { type: 'ping' }),
  ];
  let index = 0;
  if (a.text) {
    out.push(named('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
    for (const piece of slices(a.text, 5)) out.push(named('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } }));
    out.push(named('content_block_stop', { type: 'content_block_stop', index }));
    index++;
  }
  for (const [i, c] of (a.toolCalls ?? []).entries()) {
    out.push(named('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: `toolu_${n}_${i}`, name: c.name, input: {} } }));
    for (const piece of slices(JSON.stringify(c.arguments), 7)) out.push(named('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } }));
    out.push(named('content_block_stop', { type: 'content_block_stop', index }));
    index++;
  }
  out.push(named('message_delta', { type: 'message_delta', delta: { stop_reason: a.toolCalls?.length ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: completion } }));
  out.push(named('message_stop', { type: 'message_stop' }));
  return out;
}
