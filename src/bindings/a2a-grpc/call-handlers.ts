/**
 * The grpc-js handlers of one A2A method: a unary call answered once, a server stream pumped from
 * the core's iterator with backpressure, each admitted, recorded and failed through
 * ./call-admission.ts.
 */
import type * as grpc from '@grpc/grpc-js';
import type { StreamItem } from '../../core/a2a-handler.js';
import { encodeStreamResponse, type WireStreamResponse } from '../../protocol/a2a/grpc-codec.js';
import { tracingOn } from '../../observability/tracing/index.js';
import { admit, closeUsage, failure, openUsage, type GrpcCalls } from './call-admission.js';
import { GrpcCallSpan } from './call-span.js';
import type { StreamMethod, UnaryMethod } from './methods.js';

export function unaryHandler(calls: GrpcCalls, name: string, method: UnaryMethod, legacy: boolean): grpc.handleUnaryCall<unknown, object> {
  const { handler } = calls;
  return (call, callback) => {
    const abort = new AbortController();
    call.on('cancelled', () => abort.abort());
    const usage = openUsage(calls, legacy, call.metadata);
    const span = tracingOn() ? new GrpcCallSpan(name, call.metadata, usage) : undefined;
    const serve = () =>
      admit(calls, (wire) => method.prepare(wire), call, abort.signal, legacy, usage)
        .then(async ({ ctx, prepared, responseMetadata }) => {
          const response = await prepared.run(handler, ctx);
          if (responseMetadata) call.sendMetadata(responseMetadata);
          callback(null, response);
          closeUsage(calls, usage, undefined, name, span);
        })
        .catch((err: unknown) => {
          callback(failure(calls, err, name));
          closeUsage(calls, usage, err, name, span);
        });
    void serve();
  };
}

export function streamHandler(calls: GrpcCalls, name: string, method: StreamMethod, legacy: boolean): grpc.handleServerStreamingCall<unknown, WireStreamResponse> {
  const { handler, log } = calls;
  const encode = method.encode ?? encodeStreamResponse;
  return (call) => {
    const abort = new AbortController();
    let iterator: AsyncIterator<StreamItem> | undefined;
    let released = false;
    // Stop the producer exactly once, on every way out but natural completion: return() lets the
    // core unsubscribe and run its finally blocks (an async generator parked in `await` also sees
    // the aborted signal, since its return() only runs once that await settles).
    const release = (): void => {
      if (released) return;
      released = true;
      abort.abort();
      iterator?.return?.().catch((err: unknown) => log?.error({ err, method: name }, 'stream iterator return() failed'));
    };
    call.on('cancelled', release);

    const usage = openUsage(calls, legacy, call.metadata);
    const span = tracingOn() ? new GrpcCallSpan(name, call.metadata, usage) : undefined;
    if (span) call.on('cancelled', () => span.end(usage));
    const pump = async (): Promise<void> => {
      const { ctx, prepared, responseMetadata } = await admit(calls, (wire) => method.prepare(wire), call, abort.signal, legacy, usage);
      iterator = prepared.run(handler, ctx)[Symbol.asyncIterator]();
      let metadataSent = false;
      for (;;) {
        if (call.cancelled) return release();
        const next = await iterator.next();
        if (call.cancelled) return release();
        if (next.done) break;
        if (!metadataSent && responseMetadata) call.sendMetadata(responseMetadata);
        metadataSent = true;
        if (!call.write(encode(next.value.response) as WireStreamResponse)) await drained(call);
      }
      released = true; // the iterator finished by itself; nothing to return()
      if (!metadataSent && responseMetadata) call.sendMetadata(responseMetadata);
      call.end();
      closeUsage(calls, usage, undefined, name, span);
    };

    pump().catch((err: unknown) => {
      closeUsage(calls, usage, err, name, span);
      release();
      // once the client is gone, a failure (often the producer reacting to the abort) has no one to tell
      if (call.cancelled) return;
      // emitting 'error' on a grpc-js server stream ends the call with that status, after any queued writes
      call.emit('error', failure(calls, err, name));
    });
  };
}

/** Waits for the stream's buffer to drain, or for the client to go away. */
function drained(call: grpc.ServerWritableStream<unknown, WireStreamResponse>): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      call.off('drain', done);
      call.off('cancelled', done);
      resolve();
    };
    call.once('drain', done);
    call.once('cancelled', done);
  });
}
