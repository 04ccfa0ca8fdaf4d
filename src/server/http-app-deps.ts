/** What the HTTP listener is built from (./http-app.ts), and what its steps share. */
import type { IncomingMessage, ServerResponse, Server } from 'node:http';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Logger } from 'pino';
import type { Authenticator } from '../auth/authenticator.js';
import type { OAuthFaces } from '../auth/oauth/oauth-faces.js';
import type { ConsoleSessions } from '../auth/sessions/console-sessions.js';
import type { ConsoleAssets } from '../bindings/console/console-assets.js';
import type { ApiKeyAdmin } from '../bindings/management/keys-routes.js';
import type { TaskEventLog } from '../bindings/management/task-events-route.js';
import type { TaskSearch } from '../bindings/management/task-list-route.js';
import type { TaskAdmin } from '../bindings/management/task-routes.js';
import type { UsageRouteDeps } from '../bindings/management/usage-routes.js';
import type { Config } from '../config/index.js';
import type { A2AHandler } from '../core/a2a-handler.js';
import type { AgentRegistry } from '../core/agents/agent-registry.js';
import type { AuditSink } from '../core/audit/audit-event.js';
import type { AuthorizationPolicy } from '../core/authz/policy.js';
import type { KeyStore } from '../core/keys/key-store.js';
import type { QuotaBook } from '../core/quotas/quota-book.js';
import type { UsageRecorder } from '../core/usage/usage-recorder.js';
import type { BodyBudget } from '../edge/body.js';
import type { StartGate } from '../edge/start-gate.js';
import type { AuditStore } from '../store/audit-store.js';
import type { RemoteConnectionsSetup } from './remote-connections-setup.js';

/** The listener's Fastify instance, logging through the server's pino logger. */
export type HttpApp = FastifyInstance<Server, IncomingMessage, ServerResponse, Logger>;

/** The port the listener bound, once it has (port 0 in the file becomes the real one). */
export type BoundPort = () => { port: number } | undefined;

export interface HttpAppDeps {
  /** per-user OAuth to remotes: the connect pages and /api/v1/connections (ADR 0035) */
  remoteConnections?: RemoteConnectionsSetup;
  /** usage records on: every call's record is opened at the edge (src/core/usage) */
  usageRecorder?: UsageRecorder;
  config: Config;
  registry: AgentRegistry;
  handler: A2AHandler;
  auth: Authenticator;
  keys?: KeyStore;
  log: Logger;
  /** readiness of each backing service: 'ok' or why not in fixed words (no path, host or URL), and the figures behind it */
  ready: () => Promise<{ checks: Record<string, string>; measures?: object }>;
  /** why the process must restart to serve again (/healthz), undefined while it need not */
  alive: () => string | undefined;
  /**
   * Settles once the agents are registered. The listener binds earlier (cards carry the bound
   * port), so requests that arrive in between wait for it instead of finding no agents.
   */
  started: Promise<void>;
  /** the start gate of `started`, when shared with another listener (gRPC); default: its own */
  gate?: StartGate;
  /** RFC 9728 documents, and with auth.oauth.enabled the authorization server and user/client management (src/auth/oauth) */
  oauth?: OAuthFaces;
  /** the one authorization policy (src/core/authz): hidden agents, the management API */
  policy?: AuthorizationPolicy;
  /** stored API keys, for the management API (`/api/v1/keys`) */
  apiKeys?: ApiKeyAdmin;
  /** the quotas in force, for the management API (`/api/v1/quotas`) */
  quotaBook?: QuotaBook;
  /** where security and administration events go (src/core/audit); default none */
  audit?: AuditSink;
  /** the audit log, for `GET /api/v1/audit` */
  auditStore?: AuditStore;
  /** writes this replica's queued audit records (a reader sees its own replica's events) */
  flushAudit?: () => Promise<void>;
  /** any subject's task, for administrators (`/api/v1/agents/{id}/tasks/{taskId}`) */
  tasks?: TaskAdmin & TaskSearch & TaskEventLog;
  /** usage records, for the analytics API (`/api/v1/usage`) */
  usage?: UsageRouteDeps['usage'];
  /** what remains of the caller's quotas, reported by `/api/v1/usage` */
  quotaRemaining?: UsageRouteDeps['quotaRemaining'];
  /** the public URL once the listener is bound (port 0); default config.server.publicUrl */
  publicUrl?: () => string;
  /** the budget of body bytes in flight, when shared with another listener (gRPC); default: its own */
  bodyBudget?: BodyBudget;
  /** the web console's sessions (the same instance the Authenticator asks); absent: no /console */
  console?: { sessions: ConsoleSessions; assets?: ConsoleAssets };
  /** GET /metrics on this listener (src/bindings/health/metrics-endpoint.ts); absent: metrics off or on their own listener */
  metricsRoute?: FastifyPluginAsync;
}
