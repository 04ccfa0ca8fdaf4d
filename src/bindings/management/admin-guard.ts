/**
 * The gate of the management API (`/api/v1/keys`, users, clients): authenticate, then the one
 * authorization policy's `administer` action (scope `admin`; `/api/v1/usage` asks `read-usage`).
 * Refusals are 401/403 with a `WWW-Authenticate` challenge and the HTTP+JSON error body, like every
 * other binding.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticator } from '../../auth/authenticator.js';
import { withChallenge } from '../auth-challenge.js';
import { restErrorBody } from '../a2a-rest/rest-binding.js';
import { AccessDenied } from '../../core/authz/access-denied.js';
import type { AuthorizationPolicy } from '../../core/authz/policy.js';
import type { Principal } from '../../core/authz/principal.js';
import { A2AError, toA2AError } from '../../protocol/a2a/errors.js';
import { routeCaller } from '../routes/route-caller.js';

export interface AdminGuardDeps {
  auth: Authenticator;
  policy: AuthorizationPolicy;
  /** the RFC 9728 metadata URL of the management API */
  resourceMetadataUrl: () => string;
}

/** Sends an error in the HTTP+JSON shape, with a challenge on 401/403. */
export function sendError(reply: FastifyReply, err: unknown): FastifyReply {
  const e = toA2AError(err);
  const { status, body } = restErrorBody(e);
  const headers = withChallenge({ 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }, e);
  return reply.code(status).headers(headers).send(body);
}

/** The admin principal, or undefined after the refusal was sent. */
export async function requireAdmin(d: AdminGuardDeps, req: FastifyRequest, reply: FastifyReply): Promise<Principal | undefined> {
  const principal = await requireCaller(d, req, reply, 'admin');
  if (!principal) return undefined;
  try {
    d.policy.authorize(principal, 'administer');
  } catch (e) {
    return void sendDenial(d, reply, e);
  }
  return principal;
}

/**
 * The authenticated caller, or undefined after the 401 was sent; `scope` is what the challenge
 * names (the scope that would have been enough for this route).
 */
export async function requireCaller(d: AdminGuardDeps, req: FastifyRequest, reply: FastifyReply, scope: string): Promise<Principal | undefined> {
  try {
    return await routeCaller(d.auth, req.raw);
  } catch (e) {
    const err = toA2AError(e);
    if (err.kind !== 'Unauthenticated') return void sendError(reply, err);
    const { status, body } = restErrorBody(err);
    reply.code(status).headers({
      'Content-Type': 'application/json',
      'WWW-Authenticate': d.auth.challenge(err, { scope, resourceMetadata: d.resourceMetadataUrl() }),
    });
    return void reply.send(body);
  }
}

/** Sends a refusal of the policy (AccessDenied) with the management API's metadata URL in its challenge. */
export function sendDenial(d: AdminGuardDeps, reply: FastifyReply, e: unknown): FastifyReply {
  if (e instanceof AccessDenied) e.resourceMetadata = d.resourceMetadataUrl();
  return sendError(reply, e instanceof A2AError ? e : toA2AError(e));
}
