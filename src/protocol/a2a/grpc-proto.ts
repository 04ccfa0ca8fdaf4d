/**
 * Loads Agentport's own declaration of the A2A v1.0.1 wire format (proto/a2a.proto) and the
 * google.rpc status messages, once per process. The google/protobuf/* imports resolve to the
 * well-known types bundled with protobufjs, so no googleapis checkout is needed at run time.
 */
import { fileURLToPath } from 'node:url';
import * as protoLoader from '@grpc/proto-loader';
import { GRPC_PROTO_LOADER_OPTIONS } from './grpc-codec.js';

/** The shipped `proto/` folder: three levels up from both src/protocol/a2a and dist/protocol/a2a. */
export const PROTO_DIR = fileURLToPath(new URL('../../../proto/', import.meta.url));

export const A2A_PROTO_FILES = ['a2a.proto', 'google/rpc/status.proto', 'google/rpc/error_details.proto'] as const;

/** Fully qualified name of the one service every agent is served through. */
export const A2A_SERVICE_NAME = 'lf.a2a.v1.A2AService';

let cached: protoLoader.PackageDefinition | undefined;

export function a2aPackageDefinition(): protoLoader.PackageDefinition {
  cached ??= protoLoader.loadSync([...A2A_PROTO_FILES], { ...GRPC_PROTO_LOADER_OPTIONS, includeDirs: [PROTO_DIR] });
  return cached;
}

/** The service definition in the shape grpc-js's Server.addService and Client helpers take. */
export function a2aServiceDefinition(): protoLoader.ServiceDefinition {
  const def = a2aPackageDefinition()[A2A_SERVICE_NAME];
  if (!def || 'format' in def) throw new Error(`${A2A_SERVICE_NAME} missing from ${PROTO_DIR}a2a.proto`);
  return def as protoLoader.ServiceDefinition;
}

/** A message type's serializer pair, by fully qualified name (e.g. `google.rpc.Status`). */
export function messageType(name: string): protoLoader.MessageTypeDefinition<object, object> {
  const def = a2aPackageDefinition()[name];
  if (!def || !('serialize' in def)) throw new Error(`message type ${name} is not loaded`);
  return def as protoLoader.MessageTypeDefinition<object, object>;
}
