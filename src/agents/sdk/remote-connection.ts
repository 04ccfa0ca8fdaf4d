/**
 * In-task authorization for agents that call a remote as the user (`auth: oauth`, ADR 0035):
 * the task waits in AUTH_REQUIRED with the connect URL (A2A §7.6.4) and goes on by itself once the
 * user's credential is there. Shared by the built-in remote agents; the credential source is the
 * server's (src/auth/remote-oauth), seen here only through this shape.
 */
import type { AgentContext } from '../../core/agents/agent-definition.js';
import type { AgentExtension } from '../../protocol/a2a/types.js';

/** What the credential source answers: a token, or where the user connects. */
export type UserCredential = { kind: 'token'; authorization: string; remoteSubject?: string; remoteIssuer?: string } | { kind: 'connect'; connectUrl: string; reason: string } | { kind: 'unavailable'; reason: string };

const POLL_MS = 500;

/** Agentport's data-only extension stating what a credential obtained in AUTH_REQUIRED covers (docs/extensions/in-task-authorization-scope.md). */
export const IN_TASK_AUTHORIZATION_SCOPE_URI = 'urn:agentport:a2a:ext:in-task-authorization-scope:v1';

/**
 * A2A §7.6.4 (main, after v1.0.1): AUTH_REQUIRED authorizes nothing by itself, and a credential
 * obtained during a task covers later messages only where the implementation says so. The card
 * of an agent reaching its remote as the user says so, as a data-only extension (not required:
 * a client needs nothing to honour it).
 */
export function inTaskAuthorizationScope(host: string): AgentExtension {
  return {
    uri: IN_TASK_AUTHORIZATION_SCOPE_URI,
    description:
      `When a task waits in TASK_STATE_AUTH_REQUIRED, the user connects their own account at ${host} out of band (the connect link in the status message). ` +
      'That connection covers every later message and task of the same user to this agent, until it is revoked: disconnected (the console or DELETE /api/v1/connections/{agent}), ' +
      'refused by the remote, or expired with nothing to refresh it. It is never shared with another user, never used for another remote, and authorizes nothing on this server itself.',
    required: false,
    params: {
      credential: 'oauth2-connection',
      obtainedBy: 'out-of-band',
      boundTo: ['user', 'remote'],
      covers: ['later-messages', 'later-tasks'],
      until: ['disconnected', 'refused-by-remote', 'expired-without-refresh'],
    },
  };
}

/**
 * The user's token, after waiting for them to connect when `first` says they must; undefined when
 * the task ended meanwhile (canceled, or failed: not connected within `waitMs`).
 */
export async function awaitUserCredential(
  ctx: AgentContext,
  o: { first: UserCredential; next: () => Promise<UserCredential>; remote: string; host: string; waitMs: number },
): Promise<Extract<UserCredential, { kind: 'token' }> | undefined> {
  let cred = o.first;
  if (cred.kind === 'token') return asUser(ctx, cred);
  // No user action helps (a token service refused the exchange): the task fails with the reason.
  if (cred.kind === 'unavailable') {
    ctx.fail(cred.reason);
    return undefined;
  }
  ctx.requireAuth([{ text: `Connect your account at ${o.host} to continue: open ${cred.connectUrl}` }, { data: { connectUrl: cred.connectUrl, remote: o.remote, reason: cred.reason } }]);
  const until = Date.now() + o.waitMs;
  try {
    while (Date.now() < until) {
      await ctx.sleep(POLL_MS);
      cred = await o.next();
      if (cred.kind === 'token') {
        ctx.working(`Connected to ${o.host}`);
        return asUser(ctx, cred);
      }
    }
  } catch {
    return undefined; // canceled: the core has ended the task
  }
  ctx.fail(`the account at ${o.host} was not connected in time; send the message again to get a new connect link`);
  return undefined;
}

/** The run goes on as the user at the remote: their identity there goes on the usage record (never the token). */
function asUser(ctx: AgentContext, cred: Extract<UserCredential, { kind: 'token' }>): Extract<UserCredential, { kind: 'token' }> {
  if (cred.remoteSubject) ctx.reportUsage({ remoteSubject: cred.remoteSubject, ...(cred.remoteIssuer ? { remoteIssuer: cred.remoteIssuer } : {}) });
  return cred;
}

/** `signed-identity` (ADR 0034): the call goes out as `subject`, signed by Agentport (`issuer`); who it acted as there, for the usage record. */
export function reportSignedIdentity(ctx: Pick<AgentContext, 'reportUsage'>, subject: string, issuer: string | undefined): void {
  ctx.reportUsage({ remoteSubject: subject, ...(issuer ? { remoteIssuer: issuer } : {}) });
}
