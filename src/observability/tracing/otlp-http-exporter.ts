/**
 * Exports packed batches (span-batches.ts) over OTLP/HTTP, binary protobuf or JSON: the request body
 * written straight from the packed spans (otlp-proto.ts, otlp-json.ts), sent by the SDK's own OTLP/HTTP export delegate — the one
 * the SDK's `OTLPTraceExporter` is made of, with the same configuration (the url and headers given,
 * the encoding's Content-Type, and the OTEL_EXPORTER_OTLP_* timeout, compression and TLS
 * variables), its retries of 429/502/503/504 with backoff and Retry-After, its diagnostics. Only
 * its serializer is ours: the SDK's wants ReadableSpans and builds an object tree to stringify
 * (ADR 0082). Runs on the export thread (span-export-worker.ts), or on the event loop when no
 * built thread module is there.
 */
import type { ExportResult } from '@opentelemetry/core';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
import { diag, type AttributeValue } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { EarlierParts, type PackedPart, type PackedSpans, type SpanLimits, type TraceStateParser } from './packed-spans.js';
import { otlpJsonRequest, resourceJson } from './otlp-json.js';
import { otlpProtoRequest, resourceProto } from './otlp-proto.js';
import type { PackedSpanExporter } from './span-batches.js';

/** OTLP/HTTP's two encodings (OTEL_EXPORTER_OTLP_PROTOCOL's values for HTTP). */
export type OtlpHttpProtocol = 'http/protobuf' | 'http/json';

export interface OtlpHttpExporterOptions {
  url: string;
  /** binary protobuf (the default; ADR 0086) or JSON (ADR 0082) */
  protocol: OtlpHttpProtocol;
  headers: Record<string, string>;
  resourceAttributes: Record<string, AttributeValue>;
  limits: SpanLimits;
  parseTraceState: TraceStateParser;
}

/** A batch's request body, and its span count (the SDK's exporter metrics count spans). */
interface EncodedBatch {
  body: Uint8Array;
  spans: number;
}

/** The metric component type the SDK's OTLP/HTTP span exporter reports under. */
const COMPONENT_TYPE = 'otlp_http_span_exporter';

const jsonSerializer = {
  serializeRequest: (batch: EncodedBatch): Uint8Array => batch.body,
  // a collector's partial-success answer, which the delegate logs (as the SDK's JSON serializer reads it)
  deserializeResponse: (data: Uint8Array): object => {
    if (data.length === 0) return {};
    try {
      return JSON.parse(new TextDecoder().decode(data)) as object;
    } catch (err) {
      diag.warn(`Failed to parse trace export response: ${(err as Error).message}. Returning empty response`);
      return {};
    }
  },
};

// a collector's partial-success answer in protobuf, read by the SDK's own reader
const protoSerializer = {
  serializeRequest: (batch: EncodedBatch): Uint8Array => batch.body,
  deserializeResponse: (data: Uint8Array): object => ProtobufTraceSerializer.deserializeResponse(data),
};

const spanCount = { name: 'span' as const, countItems: (batch: EncodedBatch) => batch.spans };

export class OtlpHttpExporter implements PackedSpanExporter {
  readonly #parts = new EarlierParts();
  readonly #resource: Uint8Array;
  readonly #delegate;
  readonly #encode: typeof otlpJsonRequest;

  constructor(private readonly o: OtlpHttpExporterOptions) {
    const proto = o.protocol === 'http/protobuf';
    this.#resource = proto ? resourceProto(o.resourceAttributes) : resourceJson(o.resourceAttributes);
    this.#encode = proto ? otlpProtoRequest : otlpJsonRequest;
    // the Content-Type the SDK's OTLPTraceExporter of each encoding sends (exporter-trace-otlp-proto, -http)
    const config = convertLegacyHttpOptions({ url: o.url, headers: o.headers }, 'TRACES', 'v1/traces', { 'Content-Type': proto ? 'application/x-protobuf' : 'application/json' });
    this.#delegate = createOtlpHttpExportDelegate(config, proto ? protoSerializer : jsonSerializer, COMPONENT_TYPE, spanCount, undefined);
  }

  part(batch: number, spans: PackedPart): void {
    this.#parts.add(batch, spans);
  }

  export(batch: number, last: PackedSpans, done: (result: ExportResult) => void): void {
    const { body, spans } = this.#encode(last, this.#parts.take(batch), this.#resource, this.o.parseTraceState, this.o.limits);
    this.#delegate.export({ body, spans }, done);
  }

  forceFlush(): Promise<void> {
    return this.#delegate.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.#delegate.shutdown();
  }

  /** The SDK's delegate cannot cancel a send: its requests end on their own timeout, unwaited. */
  async abort(): Promise<void> {}
}
