/**
 * `/api/v1/connections` (ADR 0035): the caller's own connections to remotes with `auth: oauth`:
 * list (remote, scopes, who they are there, when connected, refreshed, last used; never a token)
 * and disconnect (deletes the vault row). Any authenticated caller, for their own subject only.
 */
import type { FastifyPluginAsync } from 'fastify';
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

export function connectionsRoutes(d: ConnectionsRoutesDeps): FastifyPluginAsync {
  return async (app) => {
    app.get('/api/v1/connections', async (req, reply) => {
      const who = await requireCaller(d, req, reply, 'a2a:publish');
      if (!who) return reply;
      const rows = new Map((await d.vault.connections(who.subject)).map((c) => [c.remote, c]));
      const connections = [...d.remotes].sort().map((remote) => {
        const c = rows.get(remote);
        if (!c) return { remote, status: 'not-connected', connectUrl: d.connectUrl(who.subject, remote) };
        return {
          remote,
          status: 'connected',
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
      const who = await requireCaller(d, req, reply, 'a2a:publish');
      if (!who) return reply;
      const remote = req.params.remote;
      if (!d.remotes.has(remote)) return sendError(reply, new A2AError('MethodNotFound', `No remote '${remote}' to connect to`));
      if (await d.vault.disconnect(who.subject, remote)) d.onDisconnected?.({ subject: who.subject, remote });
      return reply.code(204).send();
    });
  };
}
