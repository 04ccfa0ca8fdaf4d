/**
 * Authentication before a body is read, for the management API (`/api/v1/*`): every request that
 * carries a body there needs an admin credential, so the headers alone decide whether the body is
 * worth reading. Run as an `onRequest` hook, which Fastify calls before it reads the body; the
 * route still checks the caller itself (this only spares the server the bytes of a refused one).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requireAdmin, type AdminGuardDeps } from './admin-guard.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** True once a refusal (401/403 with its challenge) was sent. */
export async function refuseBodyWithoutAdmin(d: AdminGuardDeps, req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  if (!BODY_METHODS.has(req.method) || !req.url.startsWith('/api/v1/')) return false;
  if (!d.policy.enforcing) return false;
  // A refused body is never buffered: Node discards it as it arrives (closing at once instead would
  // reset the connection under a client still sending, and it would never see the 401).
  return !(await requireAdmin(d, req, reply));
}
