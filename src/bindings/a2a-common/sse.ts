/**
 * Server-Sent Events for A2A streams: `id:` is the task event seq (so `Last-Event-ID` can resume),
 * `: ping` comments keep proxies from timing out, `X-Accel-Buffering: no` stops nginx buffering.
 * The first item is read before the response is committed, so early errors stay ordinary errors.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StreamItem } from '../../core/a2a-handler.js';

export interface SseOptions {
  keepAliveMs: number;
  headers?: Record<string, string>;
  /** serializes one item to the `data:` payload */
  encode(item: StreamItem): string;
  /** serializes an error that happens after the stream started */
  encodeError(err: unknown): string;
  /** called once the first item is known, just before the response is committed */
  beforeCommit?: () => void;
}

export async function pipeSse(req: IncomingMessage, res: ServerResponse, iterator: AsyncIterator<StreamItem>, first: IteratorResult<StreamItem>, opts: SseOptions): Promise<void> {
  opts.beforeCommit?.();
  res.writeHead(200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
    ...opts.headers,
  });
  res.flushHeaders?.();
  let closed = false;
  const onClose = () => {
    if (closed) return;
    closed = true;
    clearInterval(ping);
    // The task keeps running; the client can subscribe again (with Last-Event-ID to resume).
    void iterator.return?.();
  };
  res.on('close', onClose);
  req.on('aborted', onClose);
  const ping = setInterval(() => {
    if (!closed) res.write(': ping\n\n');
  }, opts.keepAliveMs);
  ping.unref?.();

  const write = (item: StreamItem) => {
    const idLine = item.seq !== undefined ? `id: ${item.seq}\n` : '';
    res.write(`${idLine}data: ${opts.encode(item)}\n\n`);
  };
  try {
    let r = first;
    while (!r.done && !closed) {
      write(r.value);
      r = await iterator.next();
    }
  } catch (err) {
    if (!closed) res.write(`event: error\ndata: ${opts.encodeError(err)}\n\n`);
  } finally {
    clearInterval(ping);
    if (!closed) {
      closed = true;
      res.end();
    }
  }
}

/** Parses a Last-Event-ID header (or query value) into a seq; anything else is ignored. */
export function lastEventId(v: unknown): number | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  if (typeof s !== 'string' || !/^\d{1,15}$/.test(s.trim())) return undefined;
  return Number(s.trim());
}
