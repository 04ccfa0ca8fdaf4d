/**
 * What the gRPC listener decides before a request message is read (issue 19 D6), as a grpc-js
 * server interceptor: grpc-js reads a call's message only once its handler asks to, after the
 * metadata has passed every interceptor, so a call refused here never has its message buffered.
 *
 * In order: the a2a-version (v1.0 service only; its error comes first, as in the handler), the
 * caller's own check of the metadata (`beforeRead`: a credential, where every call needs one), then
 * a share of the server-wide body budget the HTTP faces use. gRPC announces no message size and
 * grpc-js shows an interceptor no bytes before the whole message, so a call reads under a share
 * of one largest message (`maxMessageBytes`), given back when the message has arrived or the call
 * ends; a message that does not arrive within the read deadline ends the call. Past the budget:
 * UNAVAILABLE (A2A's 503) with `grpc-retry-pushback-ms`, gRPC's Retry-After (gRFC A6).
 */
import * as grpc from '@grpc/grpc-js';
import { A2AError } from '../../protocol/a2a/errors.js';
import { BODY_BUSY_RETRY_AFTER_SECONDS, bodyRefusal, type BodyBudget } from '../read-limited-body.js';
import { VERSION_KEY, negotiateVersion } from './service-parameters.js';

/** gRFC A6: how long a client should wait before retrying, in trailing metadata. */
export const RETRY_PUSHBACK_KEY = 'grpc-retry-pushback-ms';

export interface GrpcAdmission {
  /**
   * Throws an A2AError to refuse the call before its message is read; `method` is the bare RPC
   * name (`SendMessage`), `legacy` true on the v0.3 service.
   */
  beforeRead?: (metadata: grpc.Metadata, method: string, legacy: boolean) => Promise<void>;
  /** bytes of request bodies in flight, shared with the HTTP faces; absent: no budget */
  budget?: BodyBudget;
  /** the largest request message (a reading call's share of the budget) */
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
    let timer: NodeJS.Timeout | undefined;
    let ended = false;
    const release = (): void => {
      if (timer) clearTimeout(timer);
      timer = undefined;
      a.budget?.release(reserved);
      reserved = 0;
    };
    const refuse = (status: Partial<grpc.StatusObject>): void => {
      release();
      if (!ended) intercepting.sendStatus({ code: status.code ?? grpc.status.INTERNAL, details: status.details ?? '', ...(status.metadata ? { metadata: status.metadata } : {}) });
    };

    const admit = async (metadata: grpc.Metadata): Promise<boolean> => {
      // The v0.3 service is itself the version: its clients send no a2a-version.
      if (!service.legacy) negotiateVersion(metadata.get(VERSION_KEY).find((v): v is string => typeof v === 'string'));
      await a.beforeRead?.(metadata, method, service.legacy);
      if (ended) return false; // the client went away meanwhile
      if (a.budget) {
        if (!a.budget.tryReserve(a.maxMessageBytes)) {
          const status = a.status(bodyRefusal({ problem: 'busy' }, a.maxMessageBytes), method);
          const trailers = status.metadata ?? new grpc.Metadata();
          trailers.set(RETRY_PUSHBACK_KEY, String(BODY_BUSY_RETRY_AFTER_SECONDS * 1000));
          refuse({ ...status, metadata: trailers });
          return false;
        }
        reserved = a.maxMessageBytes;
      }
      if (a.readTimeoutMs !== undefined) {
        timer = setTimeout(() => refuse(a.status(new A2AError('RequestTimeout', 'The request message did not arrive in time'), method)), a.readTimeoutMs);
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
              (err: unknown) => refuse(a.status(err, method)),
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
