/**
 * The web console's sessions (docs/console.md): the browser signs in through the OAuth server as
 * the console's own public client, hands the access token over once, and from then on holds only
 * an HttpOnly, SameSite=Strict cookie naming a server-side session (browser-sessions.ts).
 *
 * The cookie alone authenticates nothing. A request is the session's user only when it also
 * carries the session's CSRF token in `X-CSRF-Token`, a header no other site can set (a
 * cross-origin request with it needs a CORS preflight Agentport never grants) nor know (it is
 * read from `GET /console/session`, same origin only). Without the header the request is
 * anonymous, so a link or form from elsewhere that brings the cookie along gains nothing.
 *
 * Every account the OAuth server signs in gets a session (docs/decisions/0022-console-sessions-for-every-account.md):
 * a local user's scopes are re-read from the user at every request (a deleted user's sessions end
 * at once); an upstream or token sign-in has no user row, so its session keeps the scopes the
 * console's grant gave (and a token sign-in's usecase). Either way the session stands on that
 * grant: revoked or expired, the session is over, and it never outlives it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { decodeJwt } from 'jose';
import type { Principal } from '../../core/authz/principal.js';
import { A2AError } from '../../protocol/a2a/errors.js';
import type { OAuthStore } from '../../store/oauth-store.js';
import type { SessionGrant } from '../../store/session-store.js';
import { serverSecret } from '../oauth/server-secret.js';
import { BrowserSessions, type ActiveSession, type NewSession } from './browser-sessions.js';

export const CONSOLE_CLIENT_ID = 'agentport-console';
export const CONSOLE_COOKIE = 'ap_console';
export const CSRF_HEADER = 'x-csrf-token';
export const CONSOLE_SESSION_SECONDS = 8 * 3600;
/** what the CSRF token is bound to besides the session */
const API_FORM = 'api';

export function cookieValue(header: string | string[] | undefined, name: string): string | undefined {
  const text = Array.isArray(header) ? header.join('; ') : (header ?? '');
  return text
    .split(/;\s*/)
    .find((c) => c.startsWith(`${name}=`))
    ?.slice(name.length + 1);
}

export class ConsoleSessions {
  private sessions: Promise<BrowserSessions> | undefined;

  constructor(
    private readonly store: OAuthStore,
    /** told when sign-out revokes a grant, so its access tokens stop on this replica at once (token-revocations.ts) */
    private readonly revocations?: { grantRevoked(grantId: string): void },
  ) {}

  /** The sessions, with their CSRF secret read from (or created in) the store on first use: every replica shares it. */
  private get(): Promise<BrowserSessions> {
    this.sessions ??= serverSecret(this.store, 'console-form-key')
      .then((secret) => new BrowserSessions(this.store, Buffer.from(secret, 'base64url'), { purpose: 'console', ttlMs: CONSOLE_SESSION_SECONDS * 1000 }))
      .catch((e: unknown) => {
        this.sessions = undefined;
        throw e;
      });
    return this.sessions;
  }

  /**
   * A session for the account a verified access token of the console's client acts for
   * (`principal`, from `accessToken`). Refused when the token's grant is no longer live or is not
   * the console's, and for an account with neither a local user row nor a grant to stand on.
   */
  async begin(principal: Principal, accessToken: string, now = Date.now()): Promise<NewSession & { username: string; scopes: readonly string[] }> {
    const grantId = grantIdOf(accessToken);
    const [user, grant] = await Promise.all([this.store.getUser(principal.subject), grantId === undefined ? undefined : this.store.findRecord('Grant', grantId, now)]);
    if (grantId !== undefined && (!grant || grant.payload.accountId !== principal.subject || grant.payload.clientId !== CONSOLE_CLIENT_ID)) {
      throw new A2AError('Unauthenticated', 'The sign-in this token came from has ended; sign in again');
    }
    const sessions = await this.get();
    const usecase = principal.usecase === undefined ? {} : { usecase: principal.usecase };
    if (user) {
      const session: SessionGrant | undefined = grantId === undefined ? undefined : { id: grantId, ...usecase };
      const started = await sessions.begin(user.username, { ...(session ? { grant: session } : {}), ...(grant?.expiresAt === undefined ? {} : { notAfter: grant.expiresAt }) });
      return { ...started, username: user.username, scopes: user.scopes };
    }
    if (grantId === undefined || !grant) throw new A2AError('PermissionDenied', 'This account has no user here and its token no grant to stand on; sign in through the console');
    // What the grant gave, per resource (the token cannot carry more, but the grant is the record).
    const granted = new Set(Object.values((grant.payload.resources ?? {}) as Record<string, unknown>).flatMap((v) => (typeof v === 'string' ? v.split(' ') : [])));
    const scopes = principal.scopes.filter((s) => granted.has(s));
    const started = await sessions.begin(principal.subject, { grant: { id: grantId, scopes, ...usecase }, ...(grant.expiresAt === undefined ? {} : { notAfter: grant.expiresAt }) });
    return { ...started, username: principal.subject, scopes };
  }

  /** The live session named by the request's cookie, if any. */
  async fromCookie(headers: IncomingHttpHeaders): Promise<ActiveSession | undefined> {
    return (await this.get()).resolve(cookieValue(headers.cookie, CONSOLE_COOKIE));
  }

  async csrfToken(session: ActiveSession): Promise<string> {
    return (await this.get()).formToken(session, API_FORM);
  }

  /**
   * Sign-out (issue 25, CS1 and CS2): every console session of the account, the grant behind this
   * one (so its access token, which could open a new session or act as a bearer, dies with it),
   * and the account's browser session at the authorization server (otherwise the same browser
   * approves the next authorization, any app's, as this account without a password).
   */
  async end(session: ActiveSession, now = Date.now()): Promise<void> {
    await (await this.get()).endAllOf(session.username);
    if (session.grantId !== undefined) {
      await this.store.revokeRecordsOfGrant(session.grantId, now);
      this.revocations?.grantRevoked(session.grantId);
    }
    await this.store.endProviderSessionsOf(session.username, now);
  }

  /**
   * False when `authenticate` would answer undefined (anonymous) without a lookup: the request has
   * no CSRF header. Asked first by the Authenticator, which then answers without an async call.
   */
  carriesSession(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): boolean {
    const csrf = headers[CSRF_HEADER];
    return !!(Array.isArray(csrf) ? csrf[0] : csrf);
  }

  /**
   * The caller of a request that carries no other credential: the session's user when the cookie
   * and the CSRF header are both there, undefined (anonymous) when either is missing, and a refusal
   * when they are there but do not match a live session.
   */
  async authenticate(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Promise<Principal | undefined> {
    const csrf = headers[CSRF_HEADER];
    const presented = Array.isArray(csrf) ? csrf[0] : csrf;
    if (!presented) return undefined;
    const cookie = cookieValue(headers.cookie, CONSOLE_COOKIE);
    if (!cookie) return undefined;
    const sessions = await this.get();
    const session = await sessions.resolve(cookie);
    if (!session || !sessions.formTokenValid(session, API_FORM, presented)) {
      throw new A2AError('Unauthenticated', 'The console session has ended or its CSRF token does not match; sign in again');
    }
    return {
      subject: session.username,
      authenticated: true,
      clientId: CONSOLE_CLIENT_ID,
      scopes: Object.freeze([...session.scopes]),
      ...(session.usecase === undefined ? {} : { usecase: session.usecase }),
      ...(session.grantId === undefined ? {} : { grantId: session.grantId }),
    };
  }
}

/** The `grant_id` claim of an access token the caller has verified. */
function grantIdOf(accessToken: string): string | undefined {
  try {
    const id = decodeJwt(accessToken).grant_id;
    return typeof id === 'string' && id !== '' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** The console's URL under a public URL (with or without a path prefix): `<public URL>/console/`. */
export function consoleUrlOf(publicUrl: string): string {
  return new URL('console/', publicUrl.endsWith('/') ? publicUrl : `${publicUrl}/`).href;
}
