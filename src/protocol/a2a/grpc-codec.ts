/**
 * The gRPC codec: lf.a2a.v1 messages between the ProtoJSON model of types.ts and the plain objects
 * @grpc/proto-loader serializes when loaded with GRPC_PROTO_LOADER_OPTIONS.
 *
 * - `decode*` reads a proto-loader object and returns exactly the types.ts shape: unset fields are
 *   absent; a proto3 default ("" / false / 0) on a non-`optional` field counts as unset, because the
 *   wire cannot tell them apart; `optional` fields keep their presence (historyLength 0 ≠ unset);
 *   REQUIRED fields are checked and a miss is A2AError InvalidParams naming the field.
 * - `encode*` goes the other way and throws TypeError on a value we should never have produced.
 * - Struct/Value ⇄ JSON, Timestamp ⇄ RFC 3339 (UTC, milliseconds), bytes ⇄ base64, oneofs ⇄ the key
 *   of the member present, maps ⇄ plain objects.
 */
export * from './grpc-codec-wire.js';
export * from './grpc-codec-objects.js';
export * from './grpc-codec-requests.js';
export { decodeAgentCard, encodeAgentCard, decodeSecurityScheme, encodeSecurityScheme } from './grpc-codec-card.js';
export { decodeStruct, decodeValue, encodeStruct, encodeValue, decodeTimestamp, encodeTimestamp, parseRfc3339 } from './grpc-codec-wkt.js';
