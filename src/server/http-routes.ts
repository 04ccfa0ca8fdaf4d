/**
 * The plain routes of the HTTP listener (Fastify, the edge's fallback face), in the order they are
 * added: cards and the registry, management, the Novaeden API and OpenAPI, OAuth administration,
 * remote connections, the console, the landing page, metrics, health. Each is a face of
 * src/bindings (ADR 0041); this file only decides which are on, from the listener's deps.
 */
import { protectedResourceMetadataUrl } from '../auth/oauth-paths.js';
import { auditOriginOf } from '../auth/audit-origin.js';
import { consoleUrlOf } from '../auth/sessions/console-sessions.js';
import { addCardRoutes } from '../bindings/cards/card-routes.js';
import { consoleAssetRoutes } from '../bindings/console/console-assets.js';
import { consoleSessionRoutes } from '../bindings/console/console-session-routes.js';
import { addHealthRoutes } from '../bindings/health/health-routes.js';
import { landingPage } from '../bindings/landing/landing-page.js';
import { auditRoutes } from '../bindings/management/audit-routes.js';
import { connectionsRoutes } from '../bindings/management/connections-routes.js';
import { keyRoutes } from '../bindings/management/keys-routes.js';
import { quotaRoutes } from '../bindings/management/quota-routes.js';
import { settingsRoute } from '../bindings/management/settings-route.js';
import { taskEventsRoute } from '../bindings/management/task-events-route.js';
import { taskListRoute } from '../bindings/management/task-list-route.js';
import { taskRoutes } from '../bindings/management/task-routes.js';
import { usageRoutes } from '../bindings/management/usage-routes.js';
import { novaedenTaskApi } from '../bindings/novaeden/novaeden-task-api.js';
import { openApiRoutes } from '../bindings/openapi/openapi-routes.js';
import { connectRoutes } from '../bindings/remote-connect/connect-routes.js';
import { errorReply } from '../bindings/routes/error-reply.js';
import { withListeningPorts } from '../config/index.js';
import { packageVersion } from '../config/package-version.js';
import { A2AError } from '../protocol/a2a/errors.js';
import type { BoundPort, HttpApp, HttpAppDeps } from './http-app-deps.js';

export function addPlainRoutes(app: HttpApp, d: HttpAppDeps, publicUrl: () => string, boundPort: BoundPort): void {
  addCardRoutes(app, { registry: d.registry, auth: d.auth, policy: d.policy, keys: d.keys, cardMaxAge: d.config.cards.maxAgeSeconds });
  addManagementRoutes(app, d, publicUrl, boundPort);
  app.register(novaedenTaskApi({ registry: d.registry, handler: d.handler, auth: d.auth, ...(d.policy ? { policy: d.policy } : {}), resourceMetadataUrl: (path) => protectedResourceMetadataUrl(publicUrl(), path) }));
  app.register(openApiRoutes({ version: packageVersion() }));
  if (d.oauth) app.register(d.oauth.adminRoutes);
  addRemoteConnectionRoutes(app, d, publicUrl);
  addConsoleRoutes(app, d, publicUrl);
  addLandingPage(app, d, publicUrl);
  if (d.metricsRoute) app.register(d.metricsRoute);
  addHealthRoutes(app, d.ready, d.alive);
}

/** `/api/v1/…` for administrators: each group on when its store and the policy are there. */
function addManagementRoutes(app: HttpApp, d: HttpAppDeps, publicUrl: () => string, boundPort: BoundPort): void {
  const { config } = d;
  const resourceMetadataUrl = () => protectedResourceMetadataUrl(publicUrl(), '/api/v1');
  if (d.policy && d.apiKeys) {
    app.register(
      keyRoutes({
        auth: d.auth,
        policy: d.policy,
        store: d.apiKeys,
        resourceMetadataUrl,
        ...(d.audit ? { audit: d.audit, auditOrigin: auditOriginOf(config.auth.oauth.trustedProxies) } : {}),
      }),
    );
  }
  if (d.policy && d.auditStore) {
    app.register(auditRoutes({ auth: d.auth, policy: d.policy, store: d.auditStore, resourceMetadataUrl, ...(d.flushAudit ? { flush: d.flushAudit } : {}) }));
  }
  if (d.policy) {
    // The ports the listener bound (port 0 in the file becomes the real one).
    const running = () => withListeningPorts(config, { http: boundPort()?.port ?? config.server.port });
    app.register(settingsRoute({ auth: d.auth, policy: d.policy, config: running, resourceMetadataUrl }));
  }
  if (d.policy && d.quotaBook) {
    app.register(quotaRoutes({ auth: d.auth, policy: d.policy, book: d.quotaBook, resourceMetadataUrl }));
  }
  if (d.policy && d.tasks) {
    app.register(taskRoutes({ auth: d.auth, policy: d.policy, store: d.tasks, resourceMetadataUrl }));
    app.register(taskListRoute({ auth: d.auth, policy: d.policy, store: d.tasks, resourceMetadataUrl }));
    app.register(taskEventsRoute({ auth: d.auth, policy: d.policy, store: d.tasks, resourceMetadataUrl }));
  }
  if (d.policy && d.usage) {
    app.register(usageRoutes({ auth: d.auth, policy: d.policy, usage: d.usage, ...(d.quotaRemaining ? { quotaRemaining: d.quotaRemaining } : {}), resourceMetadataUrl }));
  }
}

/** Per-user OAuth to remotes (ADR 0035): the connect pages, and `/api/v1/connections` for administrators. */
function addRemoteConnectionRoutes(app: HttpApp, d: HttpAppDeps, publicUrl: () => string): void {
  const rc = d.remoteConnections;
  if (!rc) return;
  app.register(
    connectRoutes({
      connections: rc.connections,
      log: d.log,
      onConnected: rc.onConnected,
      onRefused: rc.onRefused,
      publicUrl,
      ...(d.console ? { sessions: d.console.sessions } : {}),
      // The console signs the browser in and then opens the link again (console/src/connect-return.ts).
      ...(d.console?.assets && d.oauth !== undefined && d.config.auth.oauth.enabled ? { signInUrl: (returnTo: string) => `${consoleUrlOf(publicUrl())}#connect=${encodeURIComponent(returnTo)}` } : {}),
    }),
  );
  if (d.policy) {
    app.register(
      connectionsRoutes({
        auth: d.auth,
        policy: d.policy,
        vault: rc.vault,
        remotes: rc.remotes,
        resourceMetadataUrl: () => protectedResourceMetadataUrl(publicUrl(), '/api/v1'),
        connectUrl: (subject, remote) => rc.connections.connectUrl(subject, remote),
        onDisconnected: rc.onDisconnected,
      }),
    );
  }
}

/** The web console (src/bindings/console, docs/console.md): its files and its session. */
function addConsoleRoutes(app: HttpApp, d: HttpAppDeps, publicUrl: () => string): void {
  const consoleDeps = d.console;
  if (!consoleDeps) return;
  app.register(consoleAssetRoutes(consoleDeps.assets, (reply, message) => errorReply(reply, new A2AError('MethodNotFound', message))));
  app.register(
    consoleSessionRoutes({
      sessions: consoleDeps.sessions,
      auth: d.auth,
      publicUrl,
      signIn: d.oauth !== undefined && d.config.auth.oauth.enabled,
      open: d.config.auth.mode === 'none',
      // The connections API exists (it is registered with the policy).
      connections: d.remoteConnections !== undefined && d.policy !== undefined,
      ...(d.audit ? { audit: d.audit } : {}),
    }),
  );
}

/** `/`: the agents, the MCP URL and how to connect clients. */
function addLandingPage(app: HttpApp, d: HttpAppDeps, publicUrl: () => string): void {
  const { config } = d;
  app.register(
    landingPage({
      registry: d.registry,
      ...(d.policy ? { policy: d.policy } : {}),
      publicUrl,
      version: packageVersion(),
      authRequired: config.auth.mode === 'required',
      oauth: d.oauth !== undefined && config.auth.oauth.enabled && config.auth.mode === 'required',
      ...(d.console?.assets ? { consoleUrl: () => consoleUrlOf(publicUrl()) } : {}),
    }),
  );
}
