/**
 * Authentication before a body is read, for the management API (`/api/v1/*`): a request that
 * carries a body there needs an admin credential (a valid one of any scope for the routes open to
 * non-administrators), so the headers alone decide whether the body is worth reading. Run as an `onRequest` hook, which Fastify calls before it reads the body; the
 * route still checks the caller itself (this only spares the server the bytes of a refused one).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { restErrorBody } from '../a2a-rest/rest-binding.js';
import { toA2AError } from '../../protocol/a2a/errors.js';
import { isNovaedenTaskWrite } from '../novaeden/novaeden-task-api.js';
import { keyVisibility } from '../../core/authz/own-api-keys.js';
import { SCOPES } from '../../core/authz/scopes.js';
import { requireAdmin, requireCaller, sendDenial, sendError, type AdminGuardDeps } from './admin-guard.js';
import { routeCaller } from '../routes/route-caller.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** True once a refusal (401/403 with its challenge) was sent. */
export async function refuseBodyWithoutAdmin(d: AdminGuardDeps, req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  if (!BODY_METHODS.has(req.method) || !req.url.startsWith('/api/v1/')) return false;
  if (!d.policy.enforcing) return false;
  // The Novaeden task API's writes take any caller holding a2a:publish (the route decides that);
  // here only a caller with no valid credential is refused before its body is read.
  if (isNovaedenTaskWrite(req.method, req.url)) return refuseUnauthenticated(d, req, reply, 'a2a:publish');
  // Anyone signed in creates keys for themselves (keys-routes.ts decides within what).
  if (req.method === 'POST' && req.url.split('?')[0] === '/api/v1/keys') return refuseWithoutCredential(d, req, reply);
  // A refused body is never buffered: Node discards it as it arrives (closing at once instead would
  // reset the connection under a client still sending, and it would never see the 401).
  return !(await requireAdmin(d, req, reply));
}

/** Refuses a request with no credential or a failing one, as the keys route would (keyVisibility). */
async function refuseWithoutCredential(d: AdminGuardDeps, req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  const principal = await requireCaller(d, req, reply, SCOPES.admin);
  if (!principal) return true;
  try {
    keyVisibility(d.policy, principal);
    return false;
  } catch (e) {
    return (sendDenial(d, reply, e), true);
  }
}

/** Refuses only a credential that fails; `scope` is what the challenge names. */
async function refuseUnauthenticated(d: AdminGuardDeps, req: FastifyRequest, reply: FastifyReply, scope: string): Promise<boolean> {
  try {
    await routeCaller(d.auth, req.raw);
    return false;
  } catch (e) {
    const err = toA2AError(e);
    if (err.kind !== 'Unauthenticated') return (sendError(reply, err), true);
    const { status, body } = restErrorBody(err);
    reply.code(status).headers({
      'Content-Type': 'application/json',
      'WWW-Authenticate': d.auth.challenge(err, { scope, resourceMetadata: d.resourceMetadataUrl() }),
    });
    reply.send(body);
    return true;
  }
}
