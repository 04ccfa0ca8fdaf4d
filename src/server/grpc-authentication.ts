/**
 * Who calls the gRPC listener: checked on metadata before a request message is read (issue 19
 * D6), and for the agent the message names once it is read. The agent (`tenant`) is inside the
 * message, so what can be known before reading is whether there is a valid credential at all; the
 * checks for the named agent (a token's RFC 8707 audience, the hidden-agent rule, scopes) run once
 * the message is read, as before.
 *
 * Refused unread: a credential that fails for every agent. No credential where the policy lets no
 * anonymous caller do what the method does: the call will be refused, but the answer depends on
 * the agent the message names (an agent the caller may not see answers as an unknown one, docs/
 * auth.md), so, as on HTTP, at most 16 KiB of the message is read, enough for any such request;
 * a larger one is refused unread with the method's Unauthenticated answer. The start gate and the
 * read limit are decided by the code the HTTP edge uses (edge/caller-admission.ts).
 */
import type { Metadata } from '@grpc/grpc-js';
import type { Authenticator } from '../auth/authenticator.js';
import type { CredentialHeaders } from '../auth/credentials.js';
import { AccessDenied } from '../core/authz/access-denied.js';
import type { Action, AuthorizationPolicy } from '../core/authz/policy.js';
import type { Principal } from '../core/authz/principal.js';
import { OPERATION_BY_NAME } from '../core/operations.js';
import type { MetadataAdmission } from '../bindings/a2a-grpc/index.js';
import { A2AError } from '../protocol/a2a/errors.js';
import { anonymousReadLimit, passStartGate } from '../edge/caller-admission.js';
import type { StartGate } from '../edge/start-gate.js';

/** The v0.3 service's RPCs that v1.0 renamed, by their v1.0 name (the rest kept theirs). */
const V03_RENAMED: Readonly<Record<string, string>> = {
  TaskSubscription: 'SubscribeToTask',
  ListTaskPushNotificationConfig: 'ListTaskPushNotificationConfigs',
  GetAgentCard: 'GetExtendedAgentCard',
};

/** What each RPC does, on the v1.0 and v0.3 services (core/operations.ts, as the authorizing handler checks). */
function actionOf(method: string): Action | undefined {
  return OPERATION_BY_NAME.get(V03_RENAMED[method] ?? method)?.action;
}

/**
 * The refusal of a token that is valid but not for the server's base audience: it may be for the
 * agent the message names, which is known only after reading (jwt-bearer.ts words it so).
 */
const OTHER_AUDIENCE = 'The bearer token is for another audience';

/** gRPC metadata as the headers the Authenticator reads. */
export function credentialHeaders(md: Metadata): CredentialHeaders {
  return Object.fromEntries(Object.entries(md.getMap()).map(([k, v]) => [k, String(v)]));
}

export interface GrpcAuthenticationDeps {
  auth: Authenticator;
  policy: AuthorizationPolicy;
  /** the listener's start gate (src/edge): own tokens' issuer is the bound public URL, known once started */
  gate: StartGate;
  /** the RFC 9728 document a refusal names: the server's own, as no agent is known yet */
  resourceMetadataUrl: () => string;
}

export interface GrpcAuthentication {
  /** the metadata check before the message is read (GrpcServerOptions.beforeRead) */
  beforeRead(md: Metadata, method: string): Promise<MetadataAdmission | undefined>;
  /** the caller, for the agent the message names (GrpcServerOptions.authenticate) */
  authenticate(md: Metadata, agentId: string): Promise<Principal>;
}

export function grpcAuthentication(d: GrpcAuthenticationDeps): GrpcAuthentication {
  // A credential accepted before reading is accepted for every agent (an own token for the
  // server's base audience is good for each agent's resource), so the call is not authenticated
  // twice; grpc-js hands the handler the same Metadata object the interceptor saw.
  const known = new WeakMap<Metadata, Principal>();
  return {
    async beforeRead(md, method) {
      await passStartGate(d.gate);
      let principal: Principal;
      try {
        principal = await d.auth.authenticate(credentialHeaders(md));
      } catch (e) {
        if (e instanceof A2AError && e.kind === 'Unauthenticated' && e.message === OTHER_AUDIENCE) return undefined;
        throw e;
      }
      known.set(md, principal);
      const action = actionOf(method);
      // An RPC the operation table does not know is grpc-js's UNIMPLEMENTED, whoever calls.
      const limit = action === undefined ? undefined : anonymousReadLimit(d.policy, principal, action);
      if (limit?.refusal instanceof AccessDenied) limit.refusal.resourceMetadata = d.resourceMetadataUrl();
      return { principal, ...(limit ? { limit } : {}) };
    },
    async authenticate(md, agentId) {
      const principal = known.get(md);
      if (principal) return principal;
      await passStartGate(d.gate);
      return d.auth.authenticate(credentialHeaders(md), { resourcePath: `/a2a/${encodeURIComponent(agentId)}` });
    },
  };
}
