/**
 * Sign-in sessions kept by the server (migration 0006_sessions): the `/mcp/config/` admin page's,
 * and the console's later. A row is keyed by the SHA-256 of the cookie value, so reading the table
 * signs nobody in; every replica reads the same rows, so a session ended on one replica is ended on
 * all of them at once (no cache).
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface StoredSession {
  /** SHA-256 (base64url) of the cookie value */
  id: string;
  username: string;
  /** what the session signs in to (`config`; the console later) */
  purpose: string;
  /** epoch ms */
  createdAt: number;
  expiresAt: number;
}

export interface SessionStore {
  createSession(s: StoredSession): Promise<void>;
  /** undefined when missing or expired at `now` */
  findSession(id: string, now: number): Promise<StoredSession | undefined>;
  endSession(id: string): Promise<void>;
  /** Ends every session of the user (sign-out everywhere, user deleted, scopes changed); returns how many. */
  endSessionsOf(username: string): Promise<number>;
  sweepExpiredSessions(now: number): Promise<number>;
}

export class SqlSessionStore implements SessionStore {
  constructor(private readonly db: Kysely<Database>) {}

  async createSession(s: StoredSession): Promise<void> {
    await this.db.insertInto('sessions').values({ id: s.id, username: s.username, purpose: s.purpose, created_at: s.createdAt, expires_at: s.expiresAt }).execute();
  }

  async findSession(id: string, now: number): Promise<StoredSession | undefined> {
    const row = await this.db.selectFrom('sessions').selectAll().where('id', '=', id).where('expires_at', '>', now).executeTakeFirst();
    return row ? { id: row.id, username: row.username, purpose: row.purpose, createdAt: Number(row.created_at), expiresAt: Number(row.expires_at) } : undefined;
  }

  async endSession(id: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id', '=', id).execute();
  }

  async endSessionsOf(username: string): Promise<number> {
    const r = await this.db.deleteFrom('sessions').where('username', '=', username).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async sweepExpiredSessions(now: number): Promise<number> {
    const r = await this.db.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
