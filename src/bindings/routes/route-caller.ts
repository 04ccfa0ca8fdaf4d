/**
 * The caller of a Fastify route. Every request of the listener was admitted by the edge, which
 * authenticates at most once per request and resource path (src/edge/): a route asks the edge's
 * context, so a guard and the route behind it do not authenticate the same request twice. A request
 * injected straight into Fastify (some tests) has no context and is authenticated here.
 */
import type { IncomingMessage } from 'node:http';
import type { Authenticator } from '../../auth/authenticator.js';
import type { Principal } from '../../core/authz/principal.js';
import { contextOf } from '../../edge/edge.js';

export function routeCaller(auth: Pick<Authenticator, 'authenticate'>, req: IncomingMessage, resourcePath?: string): Promise<Principal> {
  const ctx = contextOf(req);
  if (ctx) return ctx.principal(resourcePath);
  return auth.authenticate(req.headers, resourcePath === undefined ? undefined : { resourcePath });
}
