/**
 * The fallback when no built export thread module is there (the test runner's TypeScript sources
 * without a build): the same unpacking and the SDK's OTLP/HTTP exporter, on the event loop.
 */
import type { ExportResult } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { unpackSpans, type PackedSpans, type SpanLimits, type TraceStateParser } from './packed-spans.js';
import type { PackedSpanExporter } from './span-batches.js';

export class InLoopSpanExporter implements PackedSpanExporter {
  constructor(
    private readonly exporter: SpanExporter,
    private readonly resource: Resource,
    private readonly parse: TraceStateParser,
    private readonly limits: SpanLimits,
  ) {}

  export(batch: PackedSpans, done: (result: ExportResult) => void): void {
    this.exporter.export(unpackSpans(batch, this.resource, this.parse, this.limits), done);
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
