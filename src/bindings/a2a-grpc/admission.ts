/**
 * What the gRPC listener decides before and while a request message is read (issue 19 D6), as a
 * grpc-js server interceptor: grpc-js reads a call's message only once its handler asks to, after
 * the metadata has passed every interceptor, so a call refused on its metadata is never read.
 *
 * On the metadata, in order: the a2a-version (v1.0 service only; its error comes first, as in the
 * handler), then the caller's own check (`beforeRead`: a credential that fails for every agent is
 * refused; a caller who will be refused anyway may have a few bytes read, decided by the code the
 * HTTP faces use, edge/caller-admission.ts). While the message arrives, its bytes are reserved
 * chunk by chunk in the server-wide budget the HTTP faces use (an anonymous caller's in its
 * anonymous share, as on HTTP), and given back once the message is read or the call ends; past the budget the call ends
 * UNAVAILABLE (A2A's 503) with `grpc-retry-pushback-ms`, gRPC's Retry-After (gRFC A6). A message
 * that does not arrive within the read deadline ends the call with DEADLINE_EXCEEDED.
 *
 * The bytes are counted on the call's HTTP/2 stream, which grpc-js keeps private: if a grpc-js
 * release moves it, each call instead reserves one largest message for as long as it reads, a
 * coarser bound that still holds (see `rawStreamOf`).
 */
import type { ServerHttp2Stream } from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { A2AError } from '../../protocol/a2a/errors.js';
import { BODY_BUSY_RETRY_AFTER_SECONDS, bodyRefusal, type BodyBudget } from '../../edge/body.js';
import { readsAsAnonymous, type ReadLimit } from '../../edge/caller-admission.js';
import type { Principal } from '../../core/authz/principal.js';
import { VERSION_KEY, negotiateVersion } from './service-parameters.js';

/** gRFC A6: how long a client should wait before retrying, in trailing metadata. */
export const RETRY_PUSHBACK_KEY = 'grpc-retry-pushback-ms';

export type { ReadLimit };

/** What the metadata check learned: the caller (when its credential was accepted), and its read limit. */
export interface MetadataAdmission {
  principal?: Principal;
  limit?: ReadLimit;
}

export interface GrpcAdmission {
  /**
   * Throws an A2AError to refuse the call before its message is read, or limits how much of it is
   * read; `method` is the bare RPC name (`SendMessage`), `legacy` true on the v0.3 service.
   */
  beforeRead?: (metadata: grpc.Metadata, method: string, legacy: boolean) => Promise<MetadataAdmission | undefined>;
  /** bytes of request bodies in flight, shared with the HTTP faces; absent: no budget */
  budget?: BodyBudget;
  /** the largest request message (what a call reserves when its bytes cannot be counted) */
  maxMessageBytes: number;
  /** how long a call's message may take to arrive once it is admitted; absent: no deadline */
  readTimeoutMs?: number;
  /** turns a refusal into the status the call ends with (the binding's error shape) */
  status: (err: unknown, method: string) => Partial<grpc.StatusObject>;
  /** services whose calls are admitted here, by fully qualified name, and whether each is v0.3 */
  services: ReadonlyMap<string, { legacy: boolean }>;
}

export function admissionInterceptor(a: GrpcAdmission): grpc.ServerInterceptor {
  return (descriptor, call) => {
    // path: /lf.a2a.v1.A2AService/SendMessage
    const [, serviceName = '', method = ''] = descriptor.path.split('/');
    const service = a.services.get(serviceName);
    if (!service) return new grpc.ServerInterceptingCall(call);

    let reserved = 0;
    let received = 0;
    let limit: ReadLimit | undefined;
    let anonymous = false;
    let reading = false;
    let ended = false;
    let timer: NodeJS.Timeout | undefined;
    const release = (): void => {
      reading = false;
      if (timer) clearTimeout(timer);
      timer = undefined;
      a.budget?.release(reserved, anonymous);
      reserved = 0;
    };
    const end = (status: Partial<grpc.StatusObject>): void => {
      release();
      if (!ended) intercepting.sendStatus({ code: status.code ?? grpc.status.INTERNAL, details: status.details ?? '', ...(status.metadata ? { metadata: status.metadata } : {}) });
    };
    const refuse = (err: unknown): void => end(a.status(err, method));
    const busy = (): void => {
      const status = a.status(bodyRefusal({ problem: 'busy' }, a.maxMessageBytes), method);
      const trailers = status.metadata ?? new grpc.Metadata();
      trailers.set(RETRY_PUSHBACK_KEY, String(BODY_BUSY_RETRY_AFTER_SECONDS * 1000));
      end({ ...status, metadata: trailers });
    };

    // What is buffered is what is reserved, as on HTTP: a slow sender holds only what it has sent.
    const stream = rawStreamOf(call);
    stream?.on('data', (chunk: Buffer) => {
      if (!reading) return; // refused or read already: grpc-js discards the rest unbuffered
      received += chunk.length;
      if (limit && received > limit.bytes) return refuse(limit.refusal);
      if (!a.budget) return;
      if (!a.budget.tryReserve(chunk.length, anonymous)) return busy();
      reserved += chunk.length;
    });

    const admit = async (metadata: grpc.Metadata): Promise<boolean> => {
      // The v0.3 service is itself the version: its clients send no a2a-version.
      if (!service.legacy) negotiateVersion(metadata.get(VERSION_KEY).find((v): v is string => typeof v === 'string'));
      const admitted = await a.beforeRead?.(metadata, method, service.legacy);
      limit = admitted?.limit;
      if (a.budget) anonymous = readsAsAnonymous(a.budget, admitted?.principal);
      if (ended) return false; // the client went away meanwhile
      if (!stream && a.budget) {
        if (!a.budget.tryReserve(a.maxMessageBytes, anonymous)) {
          busy();
          return false;
        }
        reserved = a.maxMessageBytes;
      }
      reading = true;
      if (a.readTimeoutMs !== undefined) {
        timer = setTimeout(() => refuse(new A2AError('RequestTimeout', 'The request message did not arrive in time')), a.readTimeoutMs);
        timer.unref();
      }
      return true;
    };

    const intercepting = new grpc.ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, pass) => {
            admit(metadata).then(
              (admitted) => admitted && pass(metadata),
              (err: unknown) => refuse(err),
            );
          },
          // The message is read: the handler holds it now, as an HTTP face holds a body it has read.
          onReceiveMessage: (message, pass) => {
            release();
            pass(message);
          },
          onCancel: () => {
            ended = true;
            release();
          },
        }),
      sendStatus: (status, pass) => {
        ended = true;
        release();
        pass(status);
      },
    });
    return intercepting;
  };
}

/**
 * The HTTP/2 stream under a call, when the call handed to the first interceptor is grpc-js's own
 * (BaseServerInterceptingCall, which keeps it in a private `stream`); undefined otherwise.
 */
function rawStreamOf(call: grpc.ServerInterceptingCallInterface): ServerHttp2Stream | undefined {
  const stream = 'stream' in call ? call.stream : undefined;
  const looksLikeOne = typeof stream === 'object' && stream !== null && 'session' in stream && typeof (stream as ServerHttp2Stream).on === 'function';
  return looksLikeOne ? (stream as ServerHttp2Stream) : undefined;
}
