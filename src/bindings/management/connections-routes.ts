/**
 * `/api/v1/connections` (ADR 0035): the caller's own connections to remotes with `auth: oauth`:
 * list (remote, status, scopes, who they are there, when connected, refreshed, last used, and a
 * connect link to connect or connect again; never a token) and disconnect (deletes the vault row). Any authenticated caller, for their own subject only.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { restErrorBody } from '../a2a-rest/rest-binding.js';
import type { Principal } from '../../core/authz/principal.js';
import type { Authenticator } from '../../auth/authenticator.js';
import type { AuthorizationPolicy } from '../../core/authz/policy.js';
import type { TokenVault } from '../../core/vault/index.js';
import { A2AError } from '../../protocol/a2a/errors.js';
import { requireCaller, sendError } from './admin-guard.js';

export interface ConnectionsRoutesDeps {
  auth: Authenticator;
  policy: AuthorizationPolicy;
  vault: TokenVault;
  /** the agents with `auth: oauth`, by id */
  remotes: ReadonlySet<string>;
  resourceMetadataUrl: () => string;
  /** where the caller connects a remote now */
  connectUrl: (subject: string, remote: string) => string;
  onDisconnected?: (e: { subject: string; remote: string }) => void;
}

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
const now = () => Date.now();

export function connectionsRoutes(d: ConnectionsRoutesDeps): FastifyPluginAsync {
  /** A signed-in caller: connections are a person's, so the anonymous principal (no credential, or auth mode none) has none. */
  const signedIn = async (req: FastifyRequest, reply: FastifyReply): Promise<Principal | undefined> => {
    const who = await requireCaller(d, req, reply, 'a2a:publish');
    if (!who || who.authenticated) return who;
    const err = new A2AError('Unauthenticated', 'Connections belong to a signed-in caller; send a credential');
    reply.code(401).headers({ 'Content-Type': 'application/json', 'WWW-Authenticate': d.auth.challenge(err, { scope: 'a2a:publish', resourceMetadata: d.resourceMetadataUrl() }) });
    return void reply.send(restErrorBody(err).body);
  };
  return async (app) => {
    app.get('/api/v1/connections', async (req, reply) => {
      const who = await signedIn(req, reply);
      if (!who) return reply;
      const rows = new Map((await d.vault.connections(who.subject)).map((c) => [c.remote, c]));
      const connections = [...d.remotes].sort().map((remote) => {
        const c = rows.get(remote);
        const connectUrl = d.connectUrl(who.subject, remote);
        if (!c) return { remote, status: 'not-connected', connectUrl };
        // Expired with nothing to refresh it: the next call would ask to connect; say so now.
        const stale = !c.refreshable && c.expiresAt !== undefined && c.expiresAt <= now();
        return {
          remote,
          status: stale ? 'needs-reconnect' : 'connected',
          connectUrl,
          ...(c.scope ? { scopes: c.scope.split(' ') } : {}),
          ...(c.remoteSubject ? { remoteSubject: c.remoteSubject } : {}),
          connectedAt: iso(c.connectedAt),
          ...(c.refreshedAt ? { refreshedAt: iso(c.refreshedAt) } : {}),
          ...(c.lastUsedAt ? { lastUsedAt: iso(c.lastUsedAt) } : {}),
          ...(c.expiresAt ? { expiresAt: iso(c.expiresAt) } : {}),
          refreshable: c.refreshable,
        };
      });
      return reply.header('Cache-Control', 'no-store').send({ connections });
    });

    app.delete<{ Params: { remote: string } }>('/api/v1/connections/:remote', async (req, reply) => {
      const who = await signedIn(req, reply);
      if (!who) return reply;
      const remote = req.params.remote;
      if (!d.remotes.has(remote)) return sendError(reply, new A2AError('MethodNotFound', `No remote '${remote}' to connect to`));
      if (await d.vault.disconnect(who.subject, remote)) d.onDisconnected?.({ subject: who.subject, remote });
      return reply.code(204).send();
    });
  };
}
