/**
 * Loads proto/a2a-v03.proto, the A2A v0.3.0 service (package a2a.v1), once per process. It is a
 * separate package definition from lf.a2a.v1 so that the two `A2AService`s never share types.
 */
import * as protoLoader from '@grpc/proto-loader';
import { GRPC_PROTO_LOADER_OPTIONS } from '../a2a/grpc-codec.js';
import { PROTO_DIR } from '../a2a/grpc-proto.js';

export const V03_PROTO_FILE = 'a2a-v03.proto';

/** Fully qualified name of the v0.3 service: v0.3 clients call `/a2a.v1.A2AService/<Method>`. */
export const V03_SERVICE_NAME = 'a2a.v1.A2AService';

let cached: protoLoader.PackageDefinition | undefined;

export function v03PackageDefinition(): protoLoader.PackageDefinition {
  cached ??= protoLoader.loadSync([V03_PROTO_FILE], { ...GRPC_PROTO_LOADER_OPTIONS, includeDirs: [PROTO_DIR] });
  return cached;
}

export function v03ServiceDefinition(): protoLoader.ServiceDefinition {
  const def = v03PackageDefinition()[V03_SERVICE_NAME];
  if (!def || 'format' in def) throw new Error(`${V03_SERVICE_NAME} missing from ${PROTO_DIR}${V03_PROTO_FILE}`);
  return def as protoLoader.ServiceDefinition;
}
