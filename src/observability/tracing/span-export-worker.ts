/**
 * The span export thread: writes the OTLP/HTTP request of each batch (binary protobuf, or JSON as a setting) the event loop sends
 * straight from its packed spans (packed-spans.ts, otlp-proto.ts, otlp-json.ts) and sends it with the SDK's
 * OTLP/HTTP export delegate (otlp-http-exporter.ts), so the encoding and the HTTP request with its
 * retries run here, not between requests (docs/decisions/0018-tracing.md, *Revision 2*; ADR 0082).
 * The exporter's own diagnostics go back to the event loop's logger.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { diag, DiagLogLevel } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { OtlpHttpExporter } from './otlp-http-exporter.js';
import type { ExportThreadData, ToExportThread, FromExportThread } from './worker-span-exporter.js';

const data = workerData as ExportThreadData;
const port = parentPort!;
const exporter = new OtlpHttpExporter({ ...data, parseTraceState: (s) => new TraceState(s) });

const reply = (m: FromExportThread) => port.postMessage(m);
const text = (a: unknown) => (a instanceof Error ? a.message : typeof a === 'string' ? a : JSON.stringify(a));
const forward =
  (level: 'warn' | 'error') =>
  (message: string, ...args: unknown[]) =>
    reply({ diag: level, message: String(message), args: args.map(text) });
const quiet = () => {};
diag.setLogger({ error: forward('error'), warn: forward('warn'), info: quiet, debug: quiet, verbose: quiet }, DiagLogLevel.WARN);

port.on('message', (m: ToExportThread) => {
  if (m.op === 'part') exporter.part(m.batch, m.spans);
  else if (m.op === 'export') {
    exporter.export(m.batch, m.spans, (result) => reply({ id: m.id, code: result.code, ...(result.error ? { error: { name: result.error.name, message: result.error.message } } : {}) }));
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
