/**
 * Ended spans gathered into export batches, as the SDK's BatchSpanProcessor gathers them, with its
 * bounds: a batch goes when it holds `maxExportBatchSize` spans or `scheduledDelayMillis` after its
 * first span; one batch is exported at a time; spans wait in a queue of at most `maxQueueSize`,
 * and past it they are dropped (and the drop is said once spans fit again). The difference is what
 * a batch is: not an array of span objects but one string and one array of numbers the spans write
 * their values to (packed-spans.ts), handed as they are to the exporter (the export thread, or the
 * in-loop fallback).
 */
import { performance } from 'node:perf_hooks';
import { diag } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { PackedSpans } from './packed-spans.js';
import { PackedSpansWriter } from './packed-spans-writer.js';
import type { SpanSink } from './recorded-span.js';

/** Exports packed batches: the export thread (worker-span-exporter.ts) or the in-loop fallback. */
export interface PackedSpanExporter {
  export(batch: PackedSpans, done: (result: ExportResult) => void): void;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

export interface BatchOptions {
  maxQueueSize: number;
  maxExportBatchSize: number;
  scheduledDelayMillis: number;
  exportTimeoutMillis: number;
  /** where a failed export is reported (the SDK's global error handler) */
  onError: (err: Error) => void;
}

interface Batch {
  values: PackedSpansWriter;
  count: number;
}

/** A wall clock reading that moved less than this from the last one is taken as the same clock. */
const CLOCK_STEP_MS = 2;

export class SpanBatches implements SpanSink {
  /** wall-clock milliseconds at `performance.now()` zero, re-read per batch (the wall clock may be stepped) */
  origin = Date.now() - performance.now();
  #current: Batch = { values: new PackedSpansWriter(), count: 0 };
  readonly #waiting: Batch[] = [];
  /** spans in `#waiting` and in the batch being exported */
  #queued = 0;
  #exporting = false;
  #dropped = 0;
  #timer: NodeJS.Timeout | undefined;
  #idle: Array<() => void> = [];

  constructor(
    private readonly exporter: PackedSpanExporter,
    private readonly scopes: readonly InstrumentationScope[],
    private readonly o: BatchOptions,
  ) {}

  open(): PackedSpansWriter | undefined {
    if (this.#queued + this.#current.count >= this.o.maxQueueSize) {
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
    const n = ++this.#current.count;
    if (n >= this.o.maxExportBatchSize) this.#cut();
    else if (n === 1 && !this.#timer) {
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
    // as much room as the last batch needed: a full batch grows its buffer once, not at every batch
    this.#current = { values: new PackedSpansWriter(b.values.numbers.length), count: 0 };
    this.#waiting.push(b);
    this.#queued += b.count;
    this.#send();
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
      this.exporter.export({ text: v.text, numbers: v.numbers.subarray(0, v.length), others: v.others, scopes: this.scopes.slice(), origin: this.origin }, finish);
    } catch (err) {
      finish({ code: 1, error: err instanceof Error ? err : new Error(String(err)) });
    }
  }
}
