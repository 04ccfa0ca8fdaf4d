/**
 * A2A errors as gRPC statuses (spec §5.4, §10.6): the status code comes from the error table, and the
 * `grpc-status-details-bin` trailer carries the error's details (protocol/a2a/grpc-status-details.ts).
 */
import { Metadata, type StatusObject } from '@grpc/grpc-js';
import { type A2AError, GRPC_CODE } from '../../protocol/a2a/errors.js';
import { QuotaExceededError } from '../../protocol/a2a/quota-exceeded.js';
import { encodeStatusDetails, STATUS_DETAILS_KEY } from '../../protocol/a2a/grpc-status-details.js';

/** The status a grpc-js handler returns (unary callback error, or emitted on a server stream). */
export function grpcStatusFor(err: A2AError): Partial<StatusObject> {
  const code = GRPC_CODE[err.identity.grpc];
  const metadata = new Metadata();
  metadata.set(STATUS_DETAILS_KEY, encodeStatusDetails({ code, message: err.message, details: err.details() }));
  // The details carry google.rpc.RetryInfo; a plain `retry-after` trailer serves clients that read no details.
  if (err instanceof QuotaExceededError) metadata.set('retry-after', String(err.retryAfterSeconds));
  return { code, details: err.message, metadata };
}
