/**
 * Server-Sent Events for A2A streams: `id:` is the task event seq (so `Last-Event-ID` can resume),
 * `: ping` comments keep proxies from timing out, `X-Accel-Buffering: no` stops nginx buffering.
 * The first item is read before the response is committed, so early errors stay ordinary errors.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StreamItem } from '../../core/a2a-handler.js';
import type { PushableIterator, StreamSink } from '../../core/streams/stream-sink.js';
import { startPings, stopPings, type Pinged } from './sse-pings.js';

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

/**
 * Answers with the stream: `first` (already read), then every later item. A stream that can push
 * (core/streams/stream-sink.ts) is handed this response as its sink and the call returns at once:
 * an idle stream then holds no pending promise, frame or timer of its own. Otherwise the items are
 * pulled one by one until the stream ends.
 */
export function pipeSse(req: IncomingMessage, res: ServerResponse, iterator: PushableIterator<StreamItem>, first: IteratorResult<StreamItem>, opts: SseOptions): Promise<void> {
  opts.beforeCommit?.();
  res.writeHead(200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
    ...opts.headers,
  });
  res.flushHeaders?.();
  const sse = new SseResponse(req, res, iterator, opts);
  if (first.done) {
    sse.end();
    return Promise.resolve();
  }
  sse.item(first.value);
  if (sse.isClosed || sse.pushed()) return Promise.resolve();
  return sse.pull();
}

/** One open SSE answer: the stream's sink, and what the ping sweep and the client's leaving reach. */
class SseResponse implements StreamSink<StreamItem>, Pinged {
  isClosed = false;
  pingSlot = 0;
  private readonly onClose = (): void => this.clientLeft();

  constructor(
    req: IncomingMessage,
    readonly res: ServerResponse,
    private iterator: PushableIterator<StreamItem>,
    private readonly opts: SseOptions,
  ) {
    res.on('close', this.onClose);
    req.on('aborted', this.onClose);
    startPings(this, opts.keepAliveMs);
  }

  item(item: StreamItem): void {
    if (this.isClosed) return;
    let data: string;
    try {
      data = this.opts.encode(item);
    } catch (err) {
      this.end(err);
      // The stream would go on with nobody to write to.
      void this.iterator.return?.();
      return;
    }
    this.res.write(item.seq !== undefined ? `id: ${item.seq}\ndata: ${data}\n\n` : `data: ${data}\n\n`);
  }

  /** The stream is over: an error after the start goes out as an `error` event, then the answer ends. */
  end(error?: unknown): void {
    if (this.isClosed) return;
    if (error !== undefined) this.res.write(`event: error\ndata: ${this.opts.encodeError(error)}\n\n`);
    this.finish();
    this.res.end();
  }

  /** Push mode, when the stream can: from now on it hands this response its items. */
  pushed(): boolean {
    const feeding = this.iterator.attach?.(this);
    if (!feeding) return false;
    this.iterator = feeding;
    return true;
  }

  /** Pull mode, for a stream that cannot push. */
  async pull(): Promise<void> {
    try {
      while (!this.isClosed) {
        const r = await this.iterator.next();
        if (r.done || this.isClosed) break;
        this.item(r.value);
      }
      this.end();
    } catch (err) {
      this.end(err);
    }
  }

  private clientLeft(): void {
    if (this.isClosed) return;
    this.finish();
    // The task keeps running; the client can subscribe again (with Last-Event-ID to resume).
    void this.iterator.return?.();
  }

  private finish(): void {
    this.isClosed = true;
    stopPings(this, this.opts.keepAliveMs);
  }
}

/** Parses a Last-Event-ID header (or query value) into a seq; anything else is ignored. */
export function lastEventId(v: unknown): number | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  if (typeof s !== 'string' || !/^\d{1,15}$/.test(s.trim())) return undefined;
  return Number(s.trim());
}
