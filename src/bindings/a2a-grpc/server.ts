/**
 * The A2A gRPC binding: one lf.a2a.v1.A2AService for every agent, routed by the request's `tenant`,
 * and beside it the v0.3.0 a2a.v1.A2AService (src/bindings/a2a-legacy/v03/grpc.ts) for v0.3 clients, which has no tenant.
 * Each call goes: before its message is read (./admission.ts), a2a-version → the caller's metadata
 * check; its bytes read within the body budget; then authenticate for the named agent → decode and validate
 * the request → resolve the agent → a2a-extensions → A2AHandler. Every failure leaves as a gRPC status from the error table with
 * google.rpc.Status details; anything that is not an A2AError is logged and becomes a generic INTERNAL.
 */
import { tracingOn } from '../../observability/tracing/index.js';
import { GrpcCallSpan } from './call-span.js';
import { performance } from 'node:perf_hooks';
import type { UsageDraft } from '../../core/usage/usage-draft.js';
import type { UsageRecorder } from '../../core/usage/usage-recorder.js';
import * as grpc from '@grpc/grpc-js';
import type { A2AHandler, CallContext, StreamItem } from '../../core/a2a-handler.js';
import { ANONYMOUS, type Principal } from '../../core/authz/principal.js';
import { uuidv7 } from '../../core/ids/uuid-v7.js';
import { unknownTenant } from '../../core/authz/unknown-agent.js';
import { A2AError, toA2AError } from '../../protocol/a2a/errors.js';
import { encodeStreamResponse, type WireStreamResponse } from '../../protocol/a2a/grpc-codec.js';
import { A2A_METHODS, type PreparedCall, type RpcMethod, type StreamMethod, type UnaryMethod } from './methods.js';
import { A2A_SERVICE_NAME, a2aServiceDefinition } from '../../protocol/a2a/grpc-proto.js';
import { EXTENSIONS_KEY, VERSION_KEY, activateExtensions, negotiateVersion, parseExtensions } from './service-parameters.js';
import type { BodyBudget } from '../../edge/body.js';
import { admissionInterceptor, type MetadataAdmission } from './admission.js';
import { grpcStatusFor } from './status.js';
import { V03_GRPC_METHODS, V03_SERVICE_NAME, v03ServiceDefinition } from '../a2a-legacy/v03/grpc.js';

/** The slice of a pino-style logger the binding uses. */
export interface GrpcBindingLog {
  error(obj: object, msg: string): void;
}

export interface GrpcServerOptions {
  /** usage records on: a record per call (src/core/usage) */
  usage?: UsageRecorder;
  handler: A2AHandler;
  /** the agent served when a request's `tenant` is empty */
  defaultAgentId: string;
  /**
   * Turns request metadata into a caller; throw A2AError('Unauthenticated') to refuse. Default:
   * anonymous. `agentId` is the agent the call names (its tenant, else the default agent), so a
   * token's RFC 8707 audience can be checked against that agent's resource.
   */
  authenticate?: (metadata: grpc.Metadata, agentId: string) => Promise<Principal>;
  /**
   * Checks a call's metadata before its message is read: throw an A2AError to refuse it unread (a
   * credential that fails for every agent), or return how much of it a caller who will be refused
   * anyway may send. `method` is the bare RPC name.
   */
  beforeRead?: (metadata: grpc.Metadata, method: string, legacy: boolean) => Promise<MetadataAdmission | undefined>;
  /** largest request message accepted (grpc.max_receive_message_length); grpc-js default is 4 MiB */
  maxMessageBytes?: number;
  /** the server-wide budget of request bytes being read, shared with the HTTP faces */
  bodyBudget?: BodyBudget;
  /** how long an admitted call's message may take to arrive (limits.bodyReadTimeoutMs) */
  bodyReadTimeoutMs?: number;
  log?: GrpcBindingLog;
  /** default: insecure (plaintext h2c), for use behind a TLS-terminating proxy or in tests */
  credentials?: grpc.ServerCredentials;
  /** how long close() lets in-flight calls finish before cancelling them; default 5000 ms */
  shutdownGraceMs?: number;
}

export interface GrpcServer {
  server: grpc.Server;
  /** Binds and starts serving; resolves with the bound port (useful with port 0). */
  listen(host: string, port: number): Promise<number>;
  close(): Promise<void>;
}

type AnyCall = grpc.ServerUnaryCall<unknown, object> | grpc.ServerWritableStream<unknown, WireStreamResponse>;

interface Admitted<R> {
  ctx: CallContext;
  prepared: PreparedCall<R>;
  /** initial metadata echoing the activated extensions, if any */
  responseMetadata: grpc.Metadata | undefined;
}

const WELL_FORMED_REQUEST_ID = /^[\w.-]{1,64}$/;

const firstString = (md: grpc.Metadata, key: string): string | undefined => {
  const v = md.get(key).find((x): x is string => typeof x === 'string');
  return v;
};
const allStrings = (md: grpc.Metadata, key: string): string[] => md.get(key).filter((x): x is string => typeof x === 'string');

/** grpc-js's own default for grpc.max_receive_message_length */
const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** Stands in for a request whose bytes did not decode. */
const UNDECODABLE = Object.freeze({ undecodable: true });

export function createGrpcServer(opts: GrpcServerOptions): GrpcServer {
  const { handler, defaultAgentId, authenticate, log } = opts;
  const maxMessageBytes = opts.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  // Credential, version and body budget are decided on the metadata, before grpc-js reads the message.
  const admission = admissionInterceptor({
    ...(opts.beforeRead ? { beforeRead: opts.beforeRead } : {}),
    ...(opts.bodyBudget ? { budget: opts.bodyBudget } : {}),
    ...(opts.bodyReadTimeoutMs === undefined ? {} : { readTimeoutMs: opts.bodyReadTimeoutMs }),
    maxMessageBytes,
    status: (err, method) => failure(err, method),
    services: new Map([
      [A2A_SERVICE_NAME, { legacy: false }],
      [V03_SERVICE_NAME, { legacy: true }],
    ]),
  });
  const server = new grpc.Server({ 'grpc.max_receive_message_length': maxMessageBytes, interceptors: [admission] });

  async function admit<R>(prepare: (wire: unknown) => PreparedCall<R>, call: AnyCall, signal: AbortSignal, legacy: boolean, usage: UsageDraft | undefined): Promise<Admitted<R>> {
    // The v0.3 service is itself the version: its clients send no a2a-version (v0.3 had none).
    if (!legacy) negotiateVersion(firstString(call.metadata, VERSION_KEY));
    // The tenant is read unvalidated here only to name the resource the token must be for;
    // validation (and the unknown-tenant answer) comes after authentication.
    const rawTenant = (call.request as { tenant?: unknown } | null)?.tenant;
    const named = typeof rawTenant === 'string' && rawTenant !== '' ? rawTenant : defaultAgentId;
    const principal = authenticate ? await authenticate(call.metadata, named) : ANONYMOUS;
    usage?.noteCaller(principal);
    if (call.request === UNDECODABLE) throw new A2AError('InvalidRequest', 'The request is not a valid protobuf message of this method');
    const prepared = prepare(call.request);
    const agentId = prepared.tenant ?? defaultAgentId;
    // An agent the caller may not see gets the unknown-tenant answer, word for word (core/authz).
    if (!handler.hasAgent(agentId, { principal })) throw unknownTenant(agentId);
    const requestedExtensions = parseExtensions(allStrings(call.metadata, EXTENSIONS_KEY));
    const activated = activateExtensions(handler.agentExtensions(agentId), requestedExtensions);
    let responseMetadata: grpc.Metadata | undefined;
    if (activated.length > 0) {
      responseMetadata = new grpc.Metadata();
      responseMetadata.set(EXTENSIONS_KEY, activated.join(','));
    }
    const ctx: CallContext = { agentId, principal, requestedExtensions, signal, clientGone: () => signal.aborted, usage, ...(legacy ? { wireVersion: '0.3' as const } : {}) };
    return { ctx, prepared, responseMetadata };
  }

  /** A call's usage draft; the core names the operation, this listener its end (gRPC has no edge). */
  function openUsage(legacy: boolean, metadata: grpc.Metadata): UsageDraft | undefined {
    const usage = opts.usage?.open(legacy ? 'a2a-grpc/0.3' : 'a2a-grpc/1.0');
    if (!usage) return undefined;
    usage.startedMs = performance.now();
    // The client's id when well formed, as on HTTP (src/edge/edge.ts), else one of our own.
    const given = firstString(metadata, 'x-request-id');
    usage.requestId = given !== undefined && WELL_FORMED_REQUEST_ID.test(given) ? given : uuidv7();
    return usage;
  }

  function closeUsage(usage: UsageDraft | undefined, err: unknown, name: string, span?: GrpcCallSpan): void {
    if (usage) usage.operation ??= name;
    span?.end(usage, err);
    if (!usage || !opts.usage) return;
    usage.operation ??= name;
    if (err !== undefined) usage.noteError(err);
    opts.usage.finish(usage, { status: err === undefined ? 200 : toA2AError(err).identity.http, latencyMs: performance.now() - (usage.startedMs ?? 0) });
  }

  function failure(err: unknown, method: string): Partial<grpc.StatusObject> {
    if (!(err instanceof A2AError)) log?.error({ err, method }, 'gRPC call failed with an unexpected error');
    return grpcStatusFor(toA2AError(err));
  }

  function unaryHandler(name: string, method: UnaryMethod, legacy: boolean): grpc.handleUnaryCall<unknown, object> {
    return (call, callback) => {
      const abort = new AbortController();
      call.on('cancelled', () => abort.abort());
      const usage = openUsage(legacy, call.metadata);
      const span = tracingOn() ? new GrpcCallSpan(name, call.metadata, usage) : undefined;
      const serve = () =>
        admit((wire) => method.prepare(wire), call, abort.signal, legacy, usage)
          .then(async ({ ctx, prepared, responseMetadata }) => {
            const response = await prepared.run(handler, ctx);
            if (responseMetadata) call.sendMetadata(responseMetadata);
            callback(null, response);
            closeUsage(usage, undefined, name, span);
          })
          .catch((err: unknown) => {
            callback(failure(err, name));
            closeUsage(usage, err, name, span);
          });
      void serve();
    };
  }

  function streamHandler(name: string, method: StreamMethod, legacy: boolean): grpc.handleServerStreamingCall<unknown, WireStreamResponse> {
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

      const usage = openUsage(legacy, call.metadata);
      const span = tracingOn() ? new GrpcCallSpan(name, call.metadata, usage) : undefined;
      if (span) call.on('cancelled', () => span.end(usage));
      const pump = async (): Promise<void> => {
        const { ctx, prepared, responseMetadata } = await admit((wire) => method.prepare(wire), call, abort.signal, legacy, usage);
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
        closeUsage(usage, undefined, name, span);
      };

      pump().catch((err: unknown) => {
        closeUsage(usage, err, name, span);
        release();
        // once the client is gone, a failure (often the producer reacting to the abort) has no one to tell
        if (call.cancelled) return;
        // emitting 'error' on a grpc-js server stream ends the call with that status, after any queued writes
        call.emit('error', failure(err, name));
      });
    };
  }

  function addService(serviceName: string, service: ReturnType<typeof a2aServiceDefinition>, methods: Readonly<Record<string, RpcMethod>>, legacy: boolean): void {
    const implementation: grpc.UntypedServiceImplementation = {};
    // grpc-js answers a deserializer exception with INTERNAL; bytes that are not the request
    // message are the client's fault, so they are let through as a marker and refused as invalid.
    // The definitions are copied: proto-loader caches them per process, other servers share them.
    const definition: Record<string, (typeof service)[string]> = {};
    for (const [name, def] of Object.entries(service)) {
      const decode = def.requestDeserialize;
      definition[name] = {
        ...def,
        requestDeserialize: (bytes: Buffer) => {
          try {
            return decode(bytes);
          } catch {
            return UNDECODABLE;
          }
        },
      };
    }
    for (const name of Object.keys(definition)) {
      const method = methods[name];
      if (!method) throw new Error(`${serviceName}/${name} has no implementation`);
      implementation[name] = method.kind === 'unary' ? unaryHandler(name, method, legacy) : streamHandler(name, method, legacy);
    }
    server.addService(definition as grpc.ServiceDefinition, implementation);
  }
  addService(A2A_SERVICE_NAME, a2aServiceDefinition(), A2A_METHODS, false);
  addService(V03_SERVICE_NAME, v03ServiceDefinition(), V03_GRPC_METHODS, true);

  return {
    server,
    listen: (host, port) =>
      new Promise<number>((resolve, reject) => {
        const address = host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
        server.bindAsync(address, opts.credentials ?? grpc.ServerCredentials.createInsecure(), (err, boundPort) => (err ? reject(err) : resolve(boundPort)));
      }),
    close: () =>
      new Promise<void>((resolve) => {
        // long-lived SubscribeToTask streams would hold tryShutdown forever; cancel them after the grace period
        const timer = setTimeout(() => server.forceShutdown(), opts.shutdownGraceMs ?? 5000);
        timer.unref();
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
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
