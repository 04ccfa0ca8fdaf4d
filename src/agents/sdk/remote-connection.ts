/**
 * In-task authorization for agents that call a remote as the user (`auth: oauth`, ADR 0035):
 * the task waits in AUTH_REQUIRED with the connect URL (A2A §7.6.4) and goes on by itself once the
 * user's credential is there. Shared by the built-in remote agents; the credential source is the
 * server's (src/auth/remote-oauth), seen here only through this shape.
 */
import type { AgentContext } from '../../core/agents/agent-definition.js';

/** What the credential source answers: a token, or where the user connects. */
export type UserCredential = { kind: 'token'; authorization: string; remoteSubject?: string } | { kind: 'connect'; connectUrl: string; reason: string } | { kind: 'unavailable'; reason: string };

const POLL_MS = 500;

/**
 * The user's token, after waiting for them to connect when `first` says they must; undefined when
 * the task ended meanwhile (canceled, or failed: not connected within `waitMs`).
 */
export async function awaitUserCredential(
  ctx: AgentContext,
  o: { first: UserCredential; next: () => Promise<UserCredential>; remote: string; host: string; waitMs: number },
): Promise<Extract<UserCredential, { kind: 'token' }> | undefined> {
  let cred = o.first;
  if (cred.kind === 'token') return cred;
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
        return cred;
      }
    }
  } catch {
    return undefined; // canceled: the core has ended the task
  }
  ctx.fail(`the account at ${o.host} was not connected in time; send the message again to get a new connect link`);
  return undefined;
}
