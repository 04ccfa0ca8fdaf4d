/**
 * What every call of the gRPC listener shares once its message is read: the caller admitted for
 * the agent its tenant names, its usage record opened and closed, its failure as a gRPC status.
 * The steps of ./server.ts's call handlers (./call-handlers.ts), one function each.
 */
import { performance } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import { type A2AHandler, CallContext } from '../../core/a2a-handler.js';
import { ANONYMOUS, type Principal } from '../../core/authz/principal.js';
import { unknownTenant } from '../../core/authz/unknown-agent.js';
import { uuidv7 } from '../../core/ids/uuid-v7.js';
import type { UsageDraft } from '../../core/usage/usage-draft.js';
import type { UsageRecorder } from '../../core/usage/usage-recorder.js';
import { A2AError, toA2AError } from '../../protocol/a2a/errors.js';
import type { WireStreamResponse } from '../../protocol/a2a/grpc-codec.js';
import type { GrpcCallSpan } from './call-span.js';
import type { PreparedCall } from './methods.js';
import { EXTENSIONS_KEY, VERSION_KEY, activateExtensions, negotiateVersion, parseExtensions } from './service-parameters.js';
import { grpcStatusFor } from './status.js';

/** The slice of a pino-style logger the binding uses. */
export interface GrpcBindingLog {
  error(obj: object, msg: string): void;
}

/** What the calls of one gRPC server share (from GrpcServerOptions). */
export interface GrpcCalls {
  handler: A2AHandler;
  /** the agent served when a request's `tenant` is empty */
  defaultAgentId: string;
  authenticate: ((metadata: grpc.Metadata, agentId: string) => Promise<Principal>) | undefined;
  usage: UsageRecorder | undefined;
  log: GrpcBindingLog | undefined;
}

export type AnyCall = grpc.ServerUnaryCall<unknown, object> | grpc.ServerWritableStream<unknown, WireStreamResponse>;

export interface Admitted<R> {
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

/** Stands in for a request whose bytes did not decode. */
export const UNDECODABLE = Object.freeze({ undecodable: true });

export async function admit<R>(calls: GrpcCalls, prepare: (wire: unknown) => PreparedCall<R>, call: AnyCall, signal: AbortSignal, legacy: boolean, usage: UsageDraft | undefined): Promise<Admitted<R>> {
  const { handler, defaultAgentId, authenticate } = calls;
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
  const ctx = CallContext.of(agentId, principal, { signal, clientGone: () => signal.aborted, usage, wireVersion: legacy ? '0.3' : undefined }, requestedExtensions);
  return { ctx, prepared, responseMetadata };
}

/** A call's usage draft; the core names the operation, this listener its end (gRPC has no edge). */
export function openUsage(calls: GrpcCalls, legacy: boolean, metadata: grpc.Metadata): UsageDraft | undefined {
  const usage = calls.usage?.open(legacy ? 'a2a-grpc/0.3' : 'a2a-grpc/1.0');
  if (!usage) return undefined;
  usage.startedMs = performance.now();
  // The client's id when well formed, as on HTTP (src/edge/edge.ts), else one of our own.
  const given = firstString(metadata, 'x-request-id');
  usage.requestId = given !== undefined && WELL_FORMED_REQUEST_ID.test(given) ? given : uuidv7();
  return usage;
}

export function closeUsage(calls: GrpcCalls, usage: UsageDraft | undefined, err: unknown, name: string, span?: GrpcCallSpan): void {
  if (usage) usage.operation ??= name;
  span?.end(usage, err);
  if (!usage || !calls.usage) return;
  usage.operation ??= name;
  if (err !== undefined) usage.noteError(err);
  calls.usage.finish(usage, { status: err === undefined ? 200 : toA2AError(err).identity.http, latencyMs: performance.now() - (usage.startedMs ?? 0) });
}

export function failure(calls: GrpcCalls, err: unknown, method: string): Partial<grpc.StatusObject> {
  if (!(err instanceof A2AError)) calls.log?.error({ err, method }, 'gRPC call failed with an unexpected error');
  return grpcStatusFor(toA2AError(err));
}
