/**
 * Server-side browser sessions for pages a person signs in to (the `/mcp/config/` admin page, the
 * console). The cookie holds 256 random bits; the store keeps only their SHA-256, with the account
 * and the expiry, in a table every replica reads (src/store/session-store.ts).
 *
 * A session is worth only what stands behind it now. A local user's session re-reads the user at
 * every request: a user who was deleted or lost the required scope has every session ended there
 * and then. A session signed in through the OAuth server (the console's) also stands on its grant:
 * once the grant is revoked or expired, the session is over. An account with no local user row (an
 * upstream or token sign-in) has the scopes its grant gave, kept with the session at sign-in and
 * never widened afterwards. Sign-out ends every session of the account. Forms carry a token bound
 * to the session and to the form's action, so a token leaked from one form (or one session) is
 * useless for another; before sign-in, the login form's token is bound to a random per-browser
 * cookie instead (no two visitors share one).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { OAuthStore } from '../../store/oauth-store.js';
import type { SessionGrant } from '../../store/session-store.js';

export interface SessionPolicy {
  /** what the session signs in to; also the namespace of its form tokens */
  purpose: string;
  /** a session ends this long after sign-in, whatever happens */
  ttlMs: number;
  /** the user must hold this scope at every request; absent: any user (the console) */
  requiredScope?: string;
}

export interface ActiveSession {
  /** SHA-256 of the cookie value: the row's key, never the cookie itself */
  id: string;
  /** the account id (subject): a local username or `<issuer>#<subject>` */
  username: string;
  scopes: readonly string[];
  /** the usecase a token sign-in is bound to */
  usecase?: string;
  /** the OAuth grant the session stands on (the console's) */
  grantId?: string;
}

export interface NewSession {
  /** the cookie value, for the browser only */
  token: string;
  /** epoch ms */
  expiresAt: number;
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('base64url');
const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
/** cookie values we issue: 43 base64url characters */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export class BrowserSessions {
  constructor(
    private readonly store: Pick<OAuthStore, 'getUser' | 'isLive' | 'sessions'>,
    private readonly formSecret: Buffer,
    private readonly policy: SessionPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A new session for an account that just proved who it is. `grant`: the OAuth grant it signed in
   * under, which the session then stands on; `notAfter` (epoch ms): the session ends then at the
   * latest (the grant's own expiry), however long the policy's lifetime.
   */
  async begin(username: string, o: { grant?: SessionGrant; notAfter?: number } = {}): Promise<NewSession> {
    const token = randomBytes(32).toString('base64url');
    const now = this.now();
    const expiresAt = Math.min(now + this.policy.ttlMs, o.notAfter ?? Number.POSITIVE_INFINITY);
    await this.store.sessions.createSession({ id: hashOf(token), username, purpose: this.policy.purpose, createdAt: now, expiresAt, ...(o.grant ? { grant: o.grant } : {}) });
    return { token, expiresAt };
  }

  /**
   * The session behind a cookie value, if it is live, its grant (if any) is live, and its account
   * still exists (a local user) and holds the required scope.
   */
  async resolve(token: string | undefined): Promise<ActiveSession | undefined> {
    if (!token || !TOKEN.test(token)) return undefined;
    const id = hashOf(token);
    const now = this.now();
    const stored = await this.store.sessions.findSession(id, now);
    if (!stored || stored.purpose !== this.policy.purpose) return undefined;
    const grant = stored.grant;
    const required = this.policy.requiredScope;
    const usecase = { ...(grant?.usecase === undefined ? {} : { usecase: grant.usecase }), ...(grant ? { grantId: grant.id } : {}) };
    if (grant?.scopes) {
      // No local user stands behind it: the grant alone does.
      const live = await this.store.isLive('Grant', grant.id, now);
      if (!live || (required !== undefined && !grant.scopes.includes(required))) {
        await this.store.sessions.endSession(id);
        return undefined;
      }
      return { id, username: stored.username, scopes: grant.scopes, ...usecase };
    }
    const [user, live] = await Promise.all([this.store.getUser(stored.username), grant ? this.store.isLive('Grant', grant.id, now) : true]);
    if (!user || (required !== undefined && !user.scopes.includes(required))) {
      await this.store.sessions.endSessionsOf(stored.username);
      return undefined;
    }
    if (!live) {
      await this.store.sessions.endSession(id);
      return undefined;
    }
    return { id, username: user.username, scopes: user.scopes, ...usecase };
  }

  /** Sign-out: every session of the account, on every replica. */
  async endAllOf(username: string): Promise<void> {
    await this.store.sessions.endSessionsOf(username);
  }

  /** The CSRF token of one form (its action) within one session. */
  formToken(session: ActiveSession, form: string): string {
    return this.mac(`session:${session.id}:${form}`);
  }

  formTokenValid(session: ActiveSession, form: string, presented: string | null): boolean {
    return presented !== null && sameText(presented, this.formToken(session, form));
  }

  /** A fresh value for the pre-sign-in cookie that the login form's token is bound to. */
  static newBrowserNonce(): string {
    return randomBytes(32).toString('base64url');
  }

  /** The login form's CSRF token for the browser holding `nonce` (no session exists yet). */
  loginToken(nonce: string): string {
    return this.mac(`login:${nonce}`);
  }

  loginTokenValid(nonce: string | undefined, presented: string | null): boolean {
    return !!nonce && TOKEN.test(nonce) && presented !== null && sameText(presented, this.loginToken(nonce));
  }

  private mac(text: string): string {
    return createHmac('sha256', this.formSecret).update(`${this.policy.purpose}:${text}`).digest('base64url');
  }
}
