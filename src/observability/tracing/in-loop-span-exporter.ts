/**
 * The fallback when no built export thread module is there (the test runner's TypeScript sources
 * without a build): the same unpacking and the SDK's OTLP/HTTP exporter, on the event loop.
 */
import type { ExportResult } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { EarlierParts, unpackSpans, type PackedPart, type PackedSpans, type SpanLimits, type TraceStateParser } from './packed-spans.js';
import type { PackedSpanExporter } from './span-batches.js';

export class InLoopSpanExporter implements PackedSpanExporter {
  readonly #parts = new EarlierParts();

  constructor(
    private readonly exporter: SpanExporter,
    private readonly resource: Resource,
    private readonly parse: TraceStateParser,
    private readonly limits: SpanLimits,
  ) {}

  part(batch: number, spans: PackedPart): void {
    this.#parts.add(batch, spans);
  }

  export(batch: number, last: PackedSpans, done: (result: ExportResult) => void): void {
    this.exporter.export(unpackSpans(last, this.resource, this.parse, this.limits, this.#parts.take(batch)), done);
  }

  forceFlush(): Promise<void> {
    return this.exporter.forceFlush?.() ?? Promise.resolve();
  }

  shutdown(): Promise<void> {
    return this.exporter.shutdown();
  }

  /** The SDK's exporter cannot cancel a send: its requests end on their own timeout, unwaited. */
  async abort(): Promise<void> {}
}
