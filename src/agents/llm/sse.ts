/**
 * Server-sent events of a streamed model answer (both providers stream SSE): yields each event's
 * name and data, joined over `data:` lines as the HTML standard says, with a byte cap.
 */
import { ModelError } from './model.js';

export interface SseEvent {
  event?: string;
  data: string;
}

export async function* readSse(body: ReadableStream<Uint8Array>, maxBytes: number): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let bytes = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > maxBytes) throw new ModelError('bad_response', 'the model answer is too large');
      buffer += decoder.decode(value, { stream: true });
      let m: RegExpExecArray | null;
      while ((m = /\r?\n\r?\n/.exec(buffer))) {
        const block = buffer.slice(0, m.index);
        buffer = buffer.slice(m.index + m[0].length);
        const ev = parseBlock(block);
        if (ev) yield ev;
      }
    }
    const last = parseBlock(buffer);
    if (last) yield last;
  } finally {
    await reader.cancel().catch(() => {});
  }
}

function parseBlock(block: string): SseEvent | undefined {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return undefined;
  return { ...(event !== undefined ? { event } : {}), data: data.join('\n') };
}
