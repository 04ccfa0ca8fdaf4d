/**
 * The span export thread: unpacks the spans the event loop sends (packed-spans.ts) into
 * ReadableSpans and hands them to the OpenTelemetry OTLP/HTTP exporter, so the OTLP transform,
 * the JSON encoding and the HTTP request with its retries run here, not between requests
 * (docs/decisions/0018-tracing.md, *Revision 2*). The exporter's own diagnostics go back to the
 * event loop's logger.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { diag, DiagLogLevel } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { EarlierParts, unpackSpans } from './packed-spans.js';
import type { ExportThreadData, ToExportThread, FromExportThread } from './worker-span-exporter.js';

const data = workerData as ExportThreadData;
const port = parentPort!;
const exporter = new OTLPTraceExporter({ url: data.url, headers: data.headers });
const resource = resourceFromAttributes(data.resourceAttributes);
const parseTraceState = (s: string) => new TraceState(s);
const parts = new EarlierParts();

const reply = (m: FromExportThread) => port.postMessage(m);
const text = (a: unknown) => (a instanceof Error ? a.message : typeof a === 'string' ? a : JSON.stringify(a));
const forward =
  (level: 'warn' | 'error') =>
  (message: string, ...args: unknown[]) =>
    reply({ diag: level, message: String(message), args: args.map(text) });
const quiet = () => {};
diag.setLogger({ error: forward('error'), warn: forward('warn'), info: quiet, debug: quiet, verbose: quiet }, DiagLogLevel.WARN);

port.on('message', (m: ToExportThread) => {
  if (m.op === 'part') parts.add(m.batch, m.spans);
  else if (m.op === 'export') {
    const spans = unpackSpans(m.spans, resource, parseTraceState, data.limits, parts.take(m.batch));
    exporter.export(spans, (result) => reply({ id: m.id, code: result.code, ...(result.error ? { error: { name: result.error.name, message: result.error.message } } : {}) }));
  } else if (m.op === 'flush') {
    exporter.forceFlush().then(
      () => reply({ id: m.id, code: 0 }),
      (err: unknown) => reply({ id: m.id, code: 1, error: { name: 'Error', message: text(err) } }),
    );
  } else {
    exporter.shutdown().finally(() => {
      reply({ id: m.id, code: 0 });
      port.close();
    });
  }
});
