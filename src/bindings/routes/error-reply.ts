/**
 * Errors of the plain routes (cards, registry, keys, health, …): the HTTP+JSON error shape, sent
 * through Fastify or, for the edge's refusals of the fallback face, straight on the response.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import { BODY_BUSY_RETRY_AFTER_SECONDS } from '../../edge/body.js';
import type { A2AError } from '../../protocol/a2a/errors.js';
import { restErrorBody } from '../a2a-rest/rest-binding.js';

export function errorReply(reply: FastifyReply, err: A2AError): FastifyReply {
  const { status, body } = restErrorBody(err);
  return reply.code(status).headers(errorHeaders(err)).type('application/json').send(body);
}

/** The same error shape, written before or beside Fastify (the edge's refusals of the fallback face). */
export function sendRest(res: ServerResponse, err: A2AError): void {
  const { status, body } = restErrorBody(err);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)), ...errorHeaders(err) });
  res.end(body);
}

/** What an error answer of these routes carries besides its body. */
function errorHeaders(err: A2AError): Record<string, string> {
  if (err.kind === 'Unavailable') return { 'Retry-After': String(BODY_BUSY_RETRY_AFTER_SECONDS) };
  // A body too large or too slow is not waited for: the connection closes after the answer.
  if (err.kind === 'PayloadTooLarge' || err.kind === 'RequestTimeout') return { Connection: 'close' };
  return {};
}
