/**
 * A gRPC call's server span (docs/observability.md, "Traces"): in the trace the caller's
 * `traceparent` metadata names, named by the A2A method, ended once with the call's outcome.
 * gRPC has no edge, so the listener opens it itself, and puts its context into the call's usage
 * draft, where the core's spans find their parent. Only built with tracing on.
 */
import type * as grpc from '@grpc/grpc-js';
import { contextWith, extractContext, failSpan, SpanKind, startSpan, traceIdOf, type Span } from '../../observability/tracing/index.js';
import type { UsageDraft } from '../../core/usage/usage-draft.js';
import { noteDraft } from '../../edge/request-span.js';

export class GrpcCallSpan {
  private readonly span: Span;
  private ended = false;

  constructor(method: string, metadata: grpc.Metadata, usage: UsageDraft | undefined) {
    const carrier: Record<string, string> = {};
    for (const key of ['traceparent', 'tracestate']) {
      const v = metadata.get(key)[0];
      if (typeof v === 'string') carrier[key] = v;
    }
    const parent = extractContext(carrier);
    this.span = startSpan(method, { kind: SpanKind.SERVER, parent, attributes: { 'rpc.system': 'grpc', 'rpc.method': method } });
    if (usage) {
      usage.trace = contextWith(this.span, parent);
      usage.traceId = traceIdOf(usage.trace);
    }
  }

  end(usage: UsageDraft | undefined, err?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    if (usage) noteDraft(this.span, usage);
    if (err !== undefined) failSpan(this.span, err);
    this.span.end();
  }
}
