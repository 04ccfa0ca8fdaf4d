/** The A2A gRPC binding. */
export { createGrpcServer, type GrpcBindingLog, type GrpcServer, type GrpcServerOptions } from './server.js';
export { A2A_METHODS } from './methods.js';
export { RETRY_PUSHBACK_KEY, type MetadataAdmission, type ReadLimit } from './admission.js';
export { A2A_PROTO_FILES, A2A_SERVICE_NAME, PROTO_DIR, a2aPackageDefinition, a2aServiceDefinition, messageType } from '../../protocol/a2a/grpc-proto.js';
export { EXTENSIONS_KEY, SUPPORTED_VERSION, VERSION_KEY, activateExtensions, negotiateVersion, parseExtensions } from './service-parameters.js';
export { STATUS_DETAILS_KEY, decodeStatusDetails, encodeStatusDetails, type RpcStatus } from '../../protocol/a2a/grpc-status-details.js';
export { grpcStatusFor } from './status.js';
