/**
 * grpc-js writes its own errors to the console ("E No address added out of total 1 resolved"),
 * beside Agentport's message for the same failure. Its lines go to the server's log at debug
 * instead: every failure they describe also reaches Agentport through grpc-js's callbacks.
 * An operator who asks grpc-js for its own output (GRPC_VERBOSITY, GRPC_TRACE) keeps it.
 */
import { setLogger } from '@grpc/grpc-js';
import { format } from 'node:util';

export function routeGrpcLibraryLog(log: { debug(obj: object, msg?: string): void }, env: NodeJS.ProcessEnv = process.env): void {
  if (env.GRPC_VERBOSITY || env.GRPC_NODE_VERBOSITY || env.GRPC_TRACE || env.GRPC_NODE_TRACE) return;
  const write = (...args: unknown[]) => log.debug({ source: 'grpc-js' }, format(...args));
  setLogger({ error: write, info: write, debug: write });
}
