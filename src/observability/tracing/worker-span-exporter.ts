/**
 * Sends each packed batch (span-batches.ts) to a worker thread (span-export-worker.ts), which
 * writes its OTLP/HTTP request (protobuf or JSON) and sends it (otlp-http-exporter.ts). On the event loop a
 * batch costs one `postMessage` of a string and a transferred buffer of numbers; the attribute
 * limits, the encoding and the HTTP export run on the other thread (docs/benchmarks.md,
 * *Tracing cost, round 2*, *round 3* and *round 5*; ADR 0082).
 *
 * A batch counts as exported when the thread says so, so the batcher keeps its back-pressure:
 * while the thread (or the collector behind it) is busy, spans wait in the bounded queue, and past
 * it they are dropped, as with the exporter in the event loop.
 */
import type { Worker } from 'node:worker_threads';
import type { DiagLogger } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import type { PackedPart, PackedSpans, SpanLimits } from './packed-spans.js';
import type { PackedSpanExporter } from './span-batches.js';
import type { OtlpHttpProtocol } from './otlp-http-exporter.js';
import { startWorker, workerModuleUrl } from '../../config/worker-module.js';

/** What the export thread is started with. */
export interface ExportThreadData {
  url: string;
  protocol: OtlpHttpProtocol;
  headers: Record<string, string>;
  resourceAttributes: Record<string, string>;
  limits: SpanLimits;
}

export type ToExportThread = { op: 'part'; batch: number; spans: PackedPart } | { op: 'export'; id: number; batch: number; spans: PackedSpans } | { op: 'flush' | 'shutdown'; id: number };
export type FromExportThread = { id: number; code: number; error?: { name: string; message: string } } | { diag: 'warn' | 'error'; message: string; args: string[] };

export class WorkerSpanExporter implements PackedSpanExporter {
  readonly #pending = new Map<number, (r: ExportResult) => void>();
  #next = 0;
  #ended: Error | undefined;

  private constructor(
    private readonly worker: Worker,
    diagnostics: DiagLogger,
  ) {
    worker.on('message', (m: FromExportThread) => {
      if ('diag' in m) {
        diagnostics[m.diag](m.message, ...m.args);
        return;
      }
      const done = this.#pending.get(m.id);
      this.#pending.delete(m.id);
      done?.(m.code === 0 ? { code: 0 } : { code: 1, error: Object.assign(new Error(m.error?.message ?? 'span export failed'), { name: m.error?.name ?? 'Error' }) });
    });
    // A thread that dies takes its batches with it: they fail (the processor reports it) and so
    // does every later export, rather than waiting for the processor's 30 s timeout.
    const end = (err: Error) => {
      this.#ended ??= err;
      for (const done of this.#pending.values()) done({ code: 1, error: err });
      this.#pending.clear();
    };
    worker.on('error', end);
    worker.on('exit', () => end(new Error('the span export thread ended')));
  }

  /** Undefined when no built thread module is available: the caller exports in the event loop then. */
  static start(data: ExportThreadData, diagnostics: DiagLogger): WorkerSpanExporter | undefined {
    const url = workerModuleUrl('./span-export-worker.js', import.meta.url);
    if (!url) return undefined;
    const worker = startWorker(url, data);
    // Never what keeps a process alive; shutdown() holds it while the last batch goes out.
    worker.unref();
    return new WorkerSpanExporter(worker, diagnostics);
  }

  part(batch: number, spans: PackedPart): void {
    // a thread that ended fails the batch at its export; messages keep their order, so the thread
    // has a batch's parts before the batch
    if (!this.#ended) this.worker.postMessage({ op: 'part', batch, spans } satisfies ToExportThread, [spans.numbers.buffer]);
  }

  export(batch: number, spans: PackedSpans, done: (result: ExportResult) => void): void {
    if (this.#ended) done({ code: 1, error: this.#ended });
    // the numbers' buffer moves to the thread (no copy); the batcher never touches it again
    else this.#send({ op: 'export', id: 0, batch, spans }, done, [spans.numbers.buffer]);
  }

  forceFlush(): Promise<void> {
    return this.#ask('flush');
  }

  async shutdown(): Promise<void> {
    this.worker.ref();
    try {
      await this.#ask('shutdown');
    } finally {
      await this.worker.terminate();
    }
  }

  async abort(): Promise<void> {
    // its 'exit' fails every batch still pending, which settles the shutdown waiting on them
    await this.worker.terminate();
  }

  #ask(op: 'flush' | 'shutdown'): Promise<void> {
    if (this.#ended) return Promise.resolve();
    return new Promise((resolve, reject) => this.#send({ op, id: 0 }, (r) => (r.code === 0 ? resolve() : reject(r.error))));
  }

  #send(m: Exclude<ToExportThread, { op: 'part' }>, done: (r: ExportResult) => void, transfer?: ArrayBuffer[]): void {
    const id = ++this.#next;
    m.id = id;
    this.#pending.set(id, done);
    this.worker.postMessage(m, transfer);
  }
}
