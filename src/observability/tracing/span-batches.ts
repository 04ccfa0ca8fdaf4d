/**
 * Ended spans gathered into export batches, as the SDK's BatchSpanProcessor gathers them, with its
 * bounds: a batch goes when it holds `maxExportBatchSize` spans or `scheduledDelayMillis` after its
 * first span; one batch is exported at a time; spans wait in a queue of at most `maxQueueSize`,
 * and past it they are dropped (and the drop is said once spans fit again). The difference is what
 * a batch is: not an array of span objects but strings appended to one string and an array of
 * numbers the spans write their values to (packed-spans.ts), handed as they are to the exporter
 * (the export thread, or the in-loop fallback) — and handed over in parts of `partSpans` spans as
 * they fill, ahead of the batch: the exporter keeps a batch's parts and exports them with the
 * batch, whole and in order. Kept on the loop until the batch went, the strings of up to 1,024
 * spans (~200 requests') were alive at every young-generation collection, which copied them each
 * time (docs/benchmarks.md, trace17).
 */
import { performance } from 'node:perf_hooks';
import { diag } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { PackedPart, PackedSpans } from './packed-spans.js';
import { PackedSpansWriter } from './packed-spans-writer.js';
import type { SpanSink } from './recorded-span.js';

/** Exports packed batches: the export thread (worker-span-exporter.ts) or the in-loop fallback. */
export interface PackedSpanExporter {
  /** Spans of batch number `batch` ahead of it, kept until its `export`; nothing is answered for a part. */
  part(batch: number, spans: PackedPart): void;
  /** Exports batch number `batch`: the parts given for it, in the order given, then `last`. */
  export(batch: number, last: PackedSpans, done: (result: ExportResult) => void): void;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

export interface BatchOptions {
  maxQueueSize: number;
  maxExportBatchSize: number;
  scheduledDelayMillis: number;
  exportTimeoutMillis: number;
  /** spans a part of a batch holds, posted to the exporter ahead of the batch (default PART_SPANS) */
  partSpans?: number;
  /** where a failed export is reported (the SDK's global error handler) */
  onError: (err: Error) => void;
}

interface Batch {
  /** the batch's number, which its parts carry */
  id: number;
  /** the spans since the last part was posted */
  values: PackedSpansWriter;
  /** spans in the batch, parts posted included */
  count: number;
  /** spans in `values` */
  unposted: number;
}

/**
 * ~51 requests of the echo's five spans: the loop keeps that many requests' strings, not a whole
 * batch's. Each message costs the export thread 11–19 µs to receive whatever its size
 * (docs/benchmarks.md, traceexp34), so parts are as large as the loop's young generation allows
 * (64 before, ~13 requests: ~1.5 µs a request of messages; traceid35). No timer of their own: a
 * part waits at most for its batch, which goes `scheduledDelayMillis` after its first span, or at
 * `forceFlush`/`shutdown` with the spans not yet posted.
 */
export const PART_SPANS = 256;

/** A wall clock reading that moved less than this from the last one is taken as the same clock. */
const CLOCK_STEP_MS = 2;

export class SpanBatches implements SpanSink {
  /** wall-clock milliseconds at `performance.now()` zero, re-read per batch (the wall clock may be stepped) */
  origin = Date.now() - performance.now();
  #batches = 0;
  #current: Batch = this.#batch(new PackedSpansWriter());
  readonly #partSpans: number;
  readonly #waiting: Batch[] = [];
  /** spans in `#waiting` and in the batch being exported */
  #queued = 0;
  #exporting = false;
  #dropped = 0;
  /** spans dropped at a full queue since the start (the metric agentport_trace_spans_dropped_total) */
  droppedTotal = 0;
  #timer: NodeJS.Timeout | undefined;
  #idle: Array<() => void> = [];

  constructor(
    private readonly exporter: PackedSpanExporter,
    private readonly scopes: readonly InstrumentationScope[],
    private readonly o: BatchOptions,
  ) {
    this.#partSpans = o.partSpans ?? PART_SPANS;
  }

  open(): PackedSpansWriter | undefined {
    if (this.#queued + this.#current.count >= this.o.maxQueueSize) {
      this.droppedTotal++;
      if (this.#dropped++ === 0) diag.debug('maxQueueSize reached, dropping spans');
      return undefined;
    }
    if (this.#dropped > 0) {
      diag.warn(`Dropped ${this.#dropped} spans because maxQueueSize reached`);
      this.#dropped = 0;
    }
    return this.#current.values;
  }

  closed(): void {
    const b = this.#current;
    const n = ++b.count;
    if (n >= this.o.maxExportBatchSize) {
      this.#cut();
      return;
    }
    if (++b.unposted >= this.#partSpans) this.#postPart(b);
    if (n === 1 && !this.#timer) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#cut();
      }, this.o.scheduledDelayMillis);
      this.#timer.unref();
    }
  }

  /** Exports everything ended so far; resolves when the exporter has answered for all of it. */
  async forceFlush(): Promise<void> {
    this.#cut();
    if (this.#exporting || this.#waiting.length > 0) await new Promise<void>((resolve) => this.#idle.push(resolve));
    await this.exporter.forceFlush();
  }

  async shutdown(): Promise<void> {
    await this.forceFlush();
    await this.exporter.shutdown();
  }

  /** The current batch joins the queue and a new one starts. */
  #cut(): void {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const b = this.#current;
    if (b.count === 0) return;
    this.#current = this.#batch(this.#writerAfter(b));
    this.#waiting.push(b);
    this.#queued += b.count;
    this.#send();
  }

  #batch(values: PackedSpansWriter): Batch {
    return { id: ++this.#batches, values, count: 0, unposted: 0 };
  }

  /** As much room as the last part needed: a full part grows its buffer once, not every time. */
  #writerAfter(b: Batch): PackedSpansWriter {
    return new PackedSpansWriter(b.values.numbers.length);
  }

  /** The spans written since the last part go to the exporter now, ahead of their batch. */
  #postPart(b: Batch): void {
    const v = b.values;
    b.values = this.#writerAfter(b);
    b.unposted = 0;
    try {
      this.exporter.part(b.id, { text: v.text, numbers: v.numbers.subarray(0, v.length), others: v.others, blocks: v.blocks });
    } catch (err) {
      // those spans are lost, as in a failed export; the batch's others still go
      this.o.onError(err instanceof Error ? err : new Error(String(err)));
    }
  }

  #send(): void {
    if (this.#exporting) return;
    const b = this.#waiting.shift();
    if (!b) {
      for (const resolve of this.#idle.splice(0)) resolve();
      return;
    }
    this.#exporting = true;
    const clock = Date.now() - performance.now();
    if (Math.abs(clock - this.origin) > CLOCK_STEP_MS) this.origin = clock;
    let answered = false;
    const timeout = setTimeout(() => finish({ code: 1, error: new Error('Timeout') }), this.o.exportTimeoutMillis);
    timeout.unref();
    const finish = (r: ExportResult) => {
      if (answered) return;
      answered = true;
      clearTimeout(timeout);
      this.#exporting = false;
      this.#queued -= b.count;
      if (r.code !== 0) this.o.onError(r.error ?? new Error('BatchSpanProcessor: span export failed'));
      this.#send();
    };
    try {
      const v = b.values;
      this.exporter.export(b.id, { text: v.text, numbers: v.numbers.subarray(0, v.length), others: v.others, blocks: v.blocks, scopes: this.scopes.slice(), origin: this.origin }, finish);
    } catch (err) {
      finish({ code: 1, error: err instanceof Error ? err : new Error(String(err)) });
    }
  }
}
