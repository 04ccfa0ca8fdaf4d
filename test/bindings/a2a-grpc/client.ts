/** A minimal grpc-js client for lf.a2a.v1.A2AService built from the same proto, for driving the server in tests. */
import * as grpc from '@grpc/grpc-js';
import { a2aServiceDefinition } from '../../../src/protocol/a2a/grpc-proto.js';
import { STATUS_DETAILS_KEY, decodeStatusDetails, type RpcStatus } from '../../../src/protocol/a2a/grpc-status-details.js';

export interface UnaryResult<T> {
  response: T;
  /** initial (header) metadata from the server */
  metadata: grpc.Metadata;
}

export interface A2AGrpcTestClient {
  unary<T = Record<string, unknown>>(method: string, request: object, metadata?: Record<string, string>): Promise<UnaryResult<T>>;
  stream<T = Record<string, unknown>>(method: string, request: object, metadata?: Record<string, string>): grpc.ClientReadableStream<T>;
  close(): void;
}

/** Metadata with `a2a-version: 1.0` unless the caller sets (or blanks) it. */
export function metadataOf(values: Record<string, string> = {}): grpc.Metadata {
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries({ 'a2a-version': '1.0', ...values })) if (v !== '') md.set(k, v);
  return md;
}

export function connect(port: number): A2AGrpcTestClient {
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const service = a2aServiceDefinition();
  const def = (method: string) => {
    const d = service[method];
    if (!d) throw new Error(`no method ${method}`);
    return d;
  };
  return {
    unary<T>(method: string, request: object, metadata?: Record<string, string>) {
      const d = def(method);
      return new Promise<UnaryResult<T>>((resolve, reject) => {
        let headers = new grpc.Metadata();
        const call = client.makeUnaryRequest(d.path, d.requestSerialize, d.responseDeserialize, request, metadataOf(metadata), (err, response) =>
          err ? reject(err) : resolve({ response: response as T, metadata: headers }),
        );
        call.on('metadata', (md) => (headers = md));
      });
    },
    stream<T>(method: string, request: object, metadata?: Record<string, string>) {
      const d = def(method);
      return client.makeServerStreamRequest(d.path, d.requestSerialize, d.responseDeserialize, request, metadataOf(metadata)) as grpc.ClientReadableStream<T>;
    },
    close: () => client.close(),
  };
}

/** Collects a server stream: its messages, then either its end or its error. */
export function collect<T>(call: grpc.ClientReadableStream<T>): Promise<{ items: T[]; error?: grpc.ServiceError; headers?: grpc.Metadata }> {
  return new Promise((resolve) => {
    const items: T[] = [];
    let headers: grpc.Metadata | undefined;
    call.on('metadata', (md) => (headers = md));
    call.on('data', (item: T) => items.push(item));
    call.on('error', (error: grpc.ServiceError) => resolve({ items, error, headers }));
    call.on('end', () => resolve({ items, headers }));
  });
}

/** The google.rpc.Status a failed call carried in `grpc-status-details-bin`. */
export function richStatus(err: grpc.ServiceError): RpcStatus {
  const raw = err.metadata.get(STATUS_DETAILS_KEY)[0];
  if (!Buffer.isBuffer(raw)) throw new Error(`no ${STATUS_DETAILS_KEY} on the error`);
  return decodeStatusDetails(raw);
}

export function errorOf(promise: Promise<unknown>): Promise<grpc.ServiceError> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (err: grpc.ServiceError) => err,
  );
}
