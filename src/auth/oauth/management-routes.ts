/**
 * `/api/v1/users` and `/api/v1/clients` (scope `admin`), and the admin routes of the service
 * Agentport replaces (`GET /mcp/oauth/clients`, `DELETE /mcp/oauth/clients/{id}`). Same store
 * functions as the CLI; secrets and passwords are returned once, on creation, never listed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticator } from '../authenticator.js';
import { restErrorBody } from '../../protocol/a2a/rest-error-body.js';
import type { Principal } from '../../core/authz/principal.js';
import { unknownScopeMessage } from '../../core/authz/scope-names.js';
import { A2AError } from '../../protocol/a2a/errors.js';
import type { OAuthStore } from '../../store/oauth-store.js';
import { ClientInputError, createClient, deleteClient, listClients, type NewClient } from './client-registry.js';
import { listConsentGrants, revokeConsentGrant } from './consent-grants.js';
import { createUser, publicUser, UserInputError } from './local-users.js';
import type { TokenRevocations } from './token-revocations.js';
import { NO_AUDIT, type AuditEvent, type AuditSink } from '../../core/audit/audit-event.js';
import { auditActorOf, auditOriginOf, type AuditOrigin } from '../audit-origin.js';

export interface ManagementDeps {
  auth: Authenticator;
  store: OAuthStore;
  /** RFC 9728 metadata URL of the management API, for the challenge */
  resourceMetadataUrl: () => string;
  /** told when a user is deleted, so the deleted user's tokens stop here at once */
  revocations?: TokenRevocations;
  /** users and clients created and deleted, scopes changed, refused non-admins */
  audit?: AuditSink;
  auditOrigin?: (req: IncomingMessage, requestId?: string) => AuditOrigin;
}

type Refusal = { status: number; headers: Record<string, string>; body: string };

/** The admin principal, or the refusal to send (401 with a challenge, 403 insufficient_scope). */
async function admin(d: ManagementDeps, req: IncomingMessage): Promise<Principal | Refusal> {
  const headers = req.headers;
  let principal: Principal;
  try {
    principal = await d.auth.authenticate(headers);
  } catch (e) {
    const err = e instanceof A2AError ? e : new A2AError('Unauthenticated');
    const { status, body } = restErrorBody(err);
    return { status, body, headers: err.kind === 'Unauthenticated' ? { 'WWW-Authenticate': d.auth.challenge(err, { scope: 'admin', resourceMetadata: d.resourceMetadataUrl() }) } : {} };
  }
  if (!principal.authenticated) {
    const { status, body } = restErrorBody(new A2AError('Unauthenticated', 'This route needs a credential with scope admin'));
    return { status, body, headers: { 'WWW-Authenticate': `Bearer resource_metadata="${d.resourceMetadataUrl()}", scope="admin"` } };
  }
  if (!principal.scopes.includes('admin')) {
    (d.audit ?? NO_AUDIT).record({
      action: 'authz.denied',
      outcome: 'denied',
      ...auditActorOf(principal),
      ...(d.auditOrigin ?? auditOriginOf())(req),
      details: { operation: 'administer', requiredScopes: ['admin'], path: (req.url ?? '').split('?')[0] },
    });
    const { status, body } = restErrorBody(new A2AError('PermissionDenied', 'This route needs scope admin'));
    return { status, body, headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="admin", resource_metadata="${d.resourceMetadataUrl()}"` } };
  }
  return principal;
}

const isRefusal = (p: Principal | Refusal): p is Refusal => 'status' in p;

function parseJson(body: unknown): Record<string, unknown> | undefined {
  if (typeof body !== 'string' || !body) return undefined;
  try {
    const v: unknown = JSON.parse(body);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const strings = (v: unknown): string[] | undefined => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined);

function noUser(reply: FastifyReply, username: string) {
  const { status, body } = restErrorBody(new A2AError('TaskNotFound', `No user '${username}'`));
  return reply.code(status).type('application/json').send(body);
}

function badRequest(reply: FastifyReply, message: string) {
  const { status, body } = restErrorBody(new A2AError('InvalidParams', message));
  return reply.code(status).type('application/json').send(body);
}

export function managementRoutes(d: ManagementDeps): FastifyPluginAsync {
  const audit = d.audit ?? NO_AUDIT;
  const origin = d.auditOrigin ?? auditOriginOf();
  return async (app) => {
    /** The admin, or undefined once the refusal was sent. */
    const guard = async (req: FastifyRequest, reply: FastifyReply): Promise<Principal | undefined> => {
      const p = await admin(d, req.raw);
      if (!isRefusal(p)) return p;
      await reply
        .code(p.status)
        .headers({ ...p.headers, 'Content-Type': 'application/json', 'Cache-Control': 'no-store' })
        .send(p.body);
      return undefined;
    };
    const record = (by: Principal, req: FastifyRequest, e: Pick<AuditEvent, 'action' | 'target' | 'details'>) => audit.record({ outcome: 'success', ...auditActorOf(by), ...origin(req.raw, req.id), ...e });

    app.get('/api/v1/users', async (req, reply) => {
      if (!(await guard(req, reply))) return reply;
      return reply.header('Cache-Control', 'no-store').send({ users: (await d.store.listUsers()).map(publicUser) });
    });
    app.post('/api/v1/users', async (req, reply) => {
      const by = await guard(req, reply);
      if (!by) return reply;
      const b = parseJson(req.body);
      if (!b || typeof b.username !== 'string') return badRequest(reply, 'Body must be a JSON object with username (and optional password, scopes)');
      try {
        const { user, password } = await createUser(d.store, {
          username: b.username,
          ...(typeof b.password === 'string' ? { password: b.password } : {}),
          ...(strings(b.scopes) ? { scopes: strings(b.scopes)! } : {}),
          ...(b.tokenExchange === true ? { tokenExchange: true } : {}),
        });
        record(by, req, { action: 'user.created', target: `user:${user.username}`, details: { scopes: user.scopes } });
        return reply
          .code(201)
          .header('Cache-Control', 'no-store')
          .send({ user: publicUser(user), ...(typeof b.password === 'string' ? {} : { password }) });
      } catch (err) {
        if (err instanceof UserInputError) return badRequest(reply, err.message);
        throw err;
      }
    });
    app.delete<{ Params: { username: string } }>('/api/v1/users/:username', async (req, reply) => {
      const by = await guard(req, reply);
      if (!by) return reply;
      if (!(await d.store.getUser(req.params.username))) return noUser(reply, req.params.username);
      // The keys the user made end with them (K4); revoked first, so each is audited by id.
      const keys = await d.store.revokeApiKeysOfOwner(req.params.username, Date.now());
      // The store ends the user's sessions and revokes their grants with the user (D1).
      const deleted = await d.store.deleteUser(req.params.username);
      d.revocations?.forgetLiveness();
      for (const id of keys) record(by, req, { action: 'apikey.revoked', target: `apikey:${id}`, details: { reason: 'owner deleted', owner: req.params.username } });
      if (!deleted) return noUser(reply, req.params.username);
      record(by, req, { action: 'user.deleted', target: `user:${req.params.username}` });
      return reply.code(204).send();
    });

    app.patch<{ Params: { username: string } }>('/api/v1/users/:username', async (req, reply) => {
      const by = await guard(req, reply);
      if (!by) return reply;
      const scopes = strings(parseJson(req.body)?.scopes);
      if (!scopes) return badRequest(reply, 'Body must be a JSON object with scopes (an array of strings)');
      const unknownScope = unknownScopeMessage(scopes);
      if (unknownScope) return badRequest(reply, unknownScope);
      // Ends the user's sessions and revokes their grants: what they may grant has changed.
      const updated = await d.store.setUserScopes(req.params.username, scopes);
      d.revocations?.forgetLiveness();
      const user = updated ? await d.store.getUser(req.params.username) : undefined;
      if (!user) {
        const { status, body } = restErrorBody(new A2AError('TaskNotFound', `No user '${req.params.username}'`));
        return reply.code(status).type('application/json').send(body);
      }
      record(by, req, { action: 'user.scopes_changed', target: `user:${user.username}`, details: { scopes: user.scopes } });
      return reply.header('Cache-Control', 'no-store').send({ user: publicUser(user) });
    });

    app.get<{ Params: { username: string } }>('/api/v1/users/:username/grants', async (req, reply) => {
      if (!(await guard(req, reply))) return reply;
      if (!(await d.store.getUser(req.params.username))) return noUser(reply, req.params.username);
      return reply.header('Cache-Control', 'no-store').send({ grants: await listConsentGrants(d.store, req.params.username) });
    });
    app.delete<{ Params: { username: string; grantId: string } }>('/api/v1/users/:username/grants/:grantId', async (req, reply) => {
      const by = await guard(req, reply);
      if (!by) return reply;
      const { username, grantId } = req.params;
      if (!(await revokeConsentGrant(d.store, username, grantId, d.revocations))) {
        const { status, body } = restErrorBody(new A2AError('TaskNotFound', `User '${username}' holds no grant '${grantId}'`));
        return reply.code(status).type('application/json').send(body);
      }
      record(by, req, { action: 'grant.revoked', target: `user:${username}`, details: { grantId } });
      return reply.code(204).send();
    });

    app.get('/api/v1/clients', async (req, reply) => {
      if (!(await guard(req, reply))) return reply;
      return reply.header('Cache-Control', 'no-store').send({ clients: await listClients(d.store) });
    });
    app.post('/api/v1/clients', async (req, reply) => {
      const by = await guard(req, reply);
      if (!by) return reply;
      const b = parseJson(req.body);
      const kind = b?.kind ?? 'public';
      if (!b || typeof b.name !== 'string' || (kind !== 'machine' && kind !== 'public' && kind !== 'confidential')) {
        return badRequest(reply, 'Body must be a JSON object with name, kind (machine|public|confidential), redirectUris, scopes, tokenExchange');
      }
      if (b.tokenExchange !== undefined && typeof b.tokenExchange !== 'boolean') return badRequest(reply, 'tokenExchange must be a boolean');
      try {
        const created = await createClient(d.store, {
          name: b.name,
          kind: kind as NewClient['kind'],
          ...(strings(b.redirectUris) ? { redirectUris: strings(b.redirectUris)! } : {}),
          ...(strings(b.scopes) ? { scopes: strings(b.scopes)! } : {}),
          ...(b.tokenExchange === true ? { tokenExchange: true } : {}),
        });
        record(by, req, { action: 'client.created', target: `client:${created.client.clientId}`, details: { kind, ...(created.client.name !== undefined ? { name: created.client.name } : {}) } });
        return reply.code(201).header('Cache-Control', 'no-store').send(created);
      } catch (err) {
        if (err instanceof ClientInputError) return badRequest(reply, err.message);
        throw err;
      }
    });
    app.delete<{ Params: { id: string } }>('/api/v1/clients/:id', async (req, reply) => {
      const by = await guard(req, reply);
      if (!by) return reply;
      if (!(await deleteClient(d.store, req.params.id))) {
        const { status, body } = restErrorBody(new A2AError('TaskNotFound', `No client '${req.params.id}'`));
        return reply.code(status).type('application/json').send(body);
      }
      record(by, req, { action: 'client.deleted', target: `client:${req.params.id}` });
      return reply.code(204).send();
    });
  };
}

/** `GET /mcp/oauth/clients` and `DELETE /mcp/oauth/clients/{id}` on the plain node:http path. */
export function compatClientsRoute(d: ManagementDeps) {
  return async (req: IncomingMessage, res: ServerResponse, clientId: string | undefined): Promise<void> => {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers });
      res.end(body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body));
    };
    const p = await admin(d, req);
    if (isRefusal(p)) return send(p.status, p.body, p.headers);
    if (req.method === 'GET' && clientId === undefined) return send(200, { clients: await listClients(d.store) });
    if (req.method === 'DELETE' && clientId) {
      if (!(await deleteClient(d.store, clientId))) return send(404, { error: 'not_found', error_description: `No client '${clientId}'` });
      (d.audit ?? NO_AUDIT).record({ action: 'client.deleted', outcome: 'success', ...auditActorOf(p), target: `client:${clientId}`, ...(d.auditOrigin ?? auditOriginOf())(req) });
      return send(204, undefined);
    }
    return send(405, { error: 'method_not_allowed' }, { Allow: clientId ? 'DELETE' : 'GET' });
  };
}
