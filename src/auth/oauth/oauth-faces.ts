/**
 * What the server wires in: the RFC 9728 documents (always: every 401 points at them), and with
 * `auth.oauth.enabled` the authorization server, the management routes for users and clients and
 * the first-start admin user. One call from src/server/start.ts.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../../config/index.js';
import type { AgentRegistry } from '../../core/agents/agent-registry.js';
import type { KeyStore } from '../../core/keys/key-store.js';
import type { AuditSink } from '../../core/audit/audit-event.js';
import { auditOriginOf } from '../audit-origin.js';
import type { OAuthStore } from '../../store/oauth-store.js';
import type { Face } from '../../edge/face.js';
import type { Authenticator } from '../authenticator.js';
import { OAUTH_PATHS, oauthUrl, protectedResourceMetadataUrl } from '../oauth-paths.js';
import { createFirstAdminUser, type FirstAdminUser } from './first-admin-user.js';
import { compatClientsRoute, managementRoutes } from './management-routes.js';
import { createOAuthEndpoint, type OAuthRoute } from './oauth-endpoint.js';
import type { TokenRevocations } from './token-revocations.js';

export interface OAuthFaces {
  /** the face of src/edge that serves them */
  endpoint: Face<OAuthRoute>;
  adminRoutes: FastifyPluginAsync;
  /**
   * called once the server listens: creates the first admin user when there is no user yet;
   * returns the stopper of background work and that user (to be shown once by `serve`)
   */
  afterStart: () => Promise<{ stop: () => Promise<void>; firstAdminUser?: FirstAdminUser }>;
}

const SWEEP_INTERVAL_MS = 10 * 60_000;

export function createOAuthFaces(d: {
  config: () => Config;
  store: OAuthStore;
  keys: KeyStore;
  registry: AgentRegistry;
  auth: Authenticator;
  /** the same instance the Authenticator asks, so revocations here take effect there at once */
  revocations: TokenRevocations;
  log: { warn(o: object, m?: string): void; error(o: object, m?: string): void };
  /**
   * Whether an agent is seen without a credential (core/authz). RFC 9728 documents are public, so
   * a hidden agent has none: its metadata path answers 404, exactly as an unknown agent's.
   */
  isPublicAgent?: (agentId: string) => boolean;
  /** sign-ins, consent, tokens, users and clients (src/core/audit) */
  audit?: AuditSink;
}): OAuthFaces {
  const publicUrl = () => d.config().server.publicUrl;
  const management = {
    auth: d.auth,
    store: d.store,
    revocations: d.revocations,
    resourceMetadataUrl: () => protectedResourceMetadataUrl(publicUrl(), '/api/v1'),
    ...(d.audit ? { audit: d.audit, auditOrigin: auditOriginOf(d.config().auth.oauth.trustedProxies) } : {}),
  };
  const audiences = d.config().auth.audience;
  return {
    endpoint: createOAuthEndpoint({
      oauth: d.config().auth.oauth,
      publicUrl,
      store: d.store,
      keys: d.keys,
      // A hidden agent's paths are no resource anyone may name (the answer would tell it exists);
      // tokens for the server's base audience reach it.
      resources: { publicUrl, hasAgent: (id) => d.registry.get(id) !== undefined && (!d.isPublicAgent || d.isPublicAgent(id)), ...(audiences ? { audiences } : {}) },
      agentName: (id) => (d.isPublicAgent && !d.isPublicAgent(id) ? undefined : d.registry.get(id)?.publicCard.name),
      log: d.log,
      revocations: d.revocations,
      externalIssuers: (d.config().auth.issuers ?? []).map((i) => i.issuer),
      issuers: d.config().auth.issuers ?? [],
      ...(d.config().auth.clockSkewSeconds !== undefined ? { clockSkewSeconds: d.config().auth.clockSkewSeconds! } : {}),
      clientsRoute: compatClientsRoute(management),
      ...(d.audit ? { audit: d.audit } : {}),
    }),
    adminRoutes: d.config().auth.oauth.enabled ? managementRoutes(management) : async () => {},
    async afterStart() {
      // Expired codes, tokens and interactions are deleted in the background; reads ignore them anyway.
      const sweep = setInterval(() => void d.store.sweepExpired(Date.now()).catch((err: unknown) => d.log.warn({ err }, 'oauth: sweeping expired records failed')), SWEEP_INTERVAL_MS);
      sweep.unref();
      const firstAdminUser = d.config().auth.mode === 'required' && d.config().auth.oauth.enabled ? await createFirstAdminUser(d.store, { loginUrl: oauthUrl(publicUrl(), OAUTH_PATHS.authorize) }) : undefined;
      if (firstAdminUser) d.audit?.record({ action: 'user.created', outcome: 'success', actor: 'system', target: `user:${firstAdminUser.username}`, details: { firstStart: true } });
      return { stop: async () => clearInterval(sweep), ...(firstAdminUser ? { firstAdminUser } : {}) };
    },
  };
}
