/**
 * The A2A gRPC binding: one lf.a2a.v1.A2AService for every agent, routed by the request's `tenant`,
 * and beside it the v0.3.0 a2a.v1.A2AService (src/bindings/a2a-legacy/v03/grpc.ts) for v0.3 clients, which has no tenant.
 * Each call goes: before its message is read (./admission.ts), a2a-version → the caller's metadata
 * check; its bytes read within the body budget; then authenticate for the named agent → decode and validate
 * the request → resolve the agent → a2a-extensions → A2AHandler. Every failure leaves as a gRPC status from the error table with
 * google.rpc.Status details; anything that is not an A2AError is logged and becomes a generic INTERNAL.
 */
import * as grpc from '@grpc/grpc-js';
import type { Principal } from '../../core/authz/principal.js';
import type { UsageRecorder } from '../../core/usage/usage-recorder.js';
import type { A2AHandler } from '../../core/a2a-handler.js';
import type { BodyBudget } from '../../edge/body.js';
import { A2A_SERVICE_NAME, a2aServiceDefinition } from '../../protocol/a2a/grpc-proto.js';
import { V03_GRPC_METHODS, V03_SERVICE_NAME, v03ServiceDefinition } from '../a2a-legacy/v03/grpc.js';
import { admissionInterceptor, type MetadataAdmission } from './admission.js';
import { UNDECODABLE, failure, type GrpcBindingLog, type GrpcCalls } from './call-admission.js';
import { streamHandler, unaryHandler } from './call-handlers.js';
import { A2A_METHODS, type RpcMethod } from './methods.js';

export type { GrpcBindingLog } from './call-admission.js';

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

/** grpc-js's own default for grpc.max_receive_message_length */
const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

export function createGrpcServer(opts: GrpcServerOptions): GrpcServer {
  const calls: GrpcCalls = { handler: opts.handler, defaultAgentId: opts.defaultAgentId, authenticate: opts.authenticate, usage: opts.usage, log: opts.log };
  const maxMessageBytes = opts.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const server = new grpc.Server({ 'grpc.max_receive_message_length': maxMessageBytes, interceptors: [admissionOf(opts, calls, maxMessageBytes)] });
  addService(server, calls, A2A_SERVICE_NAME, a2aServiceDefinition(), A2A_METHODS, false);
  addService(server, calls, V03_SERVICE_NAME, v03ServiceDefinition(), V03_GRPC_METHODS, true);
  return { server, listen: (host, port) => listen(server, opts, host, port), close: () => close(server, opts) };
}

/** Credential, version and body budget are decided on the metadata, before grpc-js reads the message. */
function admissionOf(opts: GrpcServerOptions, calls: GrpcCalls, maxMessageBytes: number): grpc.ServerInterceptor {
  return admissionInterceptor({
    ...(opts.beforeRead ? { beforeRead: opts.beforeRead } : {}),
    ...(opts.bodyBudget ? { budget: opts.bodyBudget } : {}),
    ...(opts.bodyReadTimeoutMs === undefined ? {} : { readTimeoutMs: opts.bodyReadTimeoutMs }),
    maxMessageBytes,
    status: (err, method) => failure(calls, err, method),
    services: new Map([
      [A2A_SERVICE_NAME, { legacy: false }],
      [V03_SERVICE_NAME, { legacy: true }],
    ]),
  });
}

type ServiceDefinition = ReturnType<typeof a2aServiceDefinition>;

function addService(server: grpc.Server, calls: GrpcCalls, serviceName: string, service: ServiceDefinition, methods: Readonly<Record<string, RpcMethod>>, legacy: boolean): void {
  const implementation: grpc.UntypedServiceImplementation = {};
  const definition = tolerantDefinition(service);
  for (const name of Object.keys(definition)) {
    const method = methods[name];
    if (!method) throw new Error(`${serviceName}/${name} has no implementation`);
    implementation[name] = method.kind === 'unary' ? unaryHandler(calls, name, method, legacy) : streamHandler(calls, name, method, legacy);
  }
  server.addService(definition as grpc.ServiceDefinition, implementation);
}

/**
 * grpc-js answers a deserializer exception with INTERNAL; bytes that are not the request message
 * are the client's fault, so they are let through as a marker and refused as invalid. The
 * definitions are copied: proto-loader caches them per process, other servers share them.
 */
function tolerantDefinition(service: ServiceDefinition): Record<string, ServiceDefinition[string]> {
  const definition: Record<string, ServiceDefinition[string]> = {};
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
  return definition;
}

function listen(server: grpc.Server, opts: GrpcServerOptions, host: string, port: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const address = host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
    server.bindAsync(address, opts.credentials ?? grpc.ServerCredentials.createInsecure(), (err, boundPort) => (err ? reject(err) : resolve(boundPort)));
  });
}

function close(server: grpc.Server, opts: GrpcServerOptions): Promise<void> {
  return new Promise<void>((resolve) => {
    // long-lived SubscribeToTask streams would hold tryShutdown forever; cancel them after the grace period
    const timer = setTimeout(() => server.forceShutdown(), opts.shutdownGraceMs ?? 5000);
    timer.unref();
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
