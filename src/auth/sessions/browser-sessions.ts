/**
 * Server-side browser sessions for pages a person signs in to (the `/mcp/config/` admin page now,
 * the console later). The cookie holds 256 random bits; the store keeps only their SHA-256, with
 * the user and the expiry, in a table every replica reads (src/store/session-store.ts).
 *
 * A session is worth only what its user is worth now: every request re-reads the user, and a user
 * who was deleted or lost the required scope has every session ended there and then. Sign-out ends
 * every session of the user. Forms carry a token bound to the session and to the form's action, so
 * a token leaked from one form (or one session) is useless for another; before sign-in, the login
 * form's token is bound to a random per-browser cookie instead (no two visitors share one).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { OAuthStore } from '../../store/oauth-store.js';

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
  username: string;
  scopes: readonly string[];
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('base64url');
const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
/** cookie values we issue: 43 base64url characters */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export class BrowserSessions {
  constructor(
    private readonly store: Pick<OAuthStore, 'getUser' | 'sessions'>,
    private readonly formSecret: Buffer,
    private readonly policy: SessionPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new session for a user who just proved who they are; returns the cookie value. */
  async begin(username: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const now = this.now();
    await this.store.sessions.createSession({ id: hashOf(token), username, purpose: this.policy.purpose, createdAt: now, expiresAt: now + this.policy.ttlMs });
    return token;
  }

  /** The session behind a cookie value, if it is live and its user still exists and holds the scope. */
  async resolve(token: string | undefined): Promise<ActiveSession | undefined> {
    if (!token || !TOKEN.test(token)) return undefined;
    const id = hashOf(token);
    const stored = await this.store.sessions.findSession(id, this.now());
    if (!stored || stored.purpose !== this.policy.purpose) return undefined;
    const user = await this.store.getUser(stored.username);
    const required = this.policy.requiredScope;
    if (!user || (required !== undefined && !user.scopes.includes(required))) {
      await this.store.sessions.endSessionsOf(stored.username);
      return undefined;
    }
    return { id, username: user.username, scopes: user.scopes };
  }

  /** Sign-out: every session of the user, on every replica. */
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
