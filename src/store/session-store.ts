/**
 * Sign-in sessions kept by the server (migrations 0006_sessions, 0015_session_grants): the
 * `/mcp/config/` admin page's and the console's. A row is keyed by the SHA-256 of the cookie value,
 * so reading the table signs nobody in; every replica reads the same rows, so a session ended on
 * one replica is ended on all of them at once (no cache).
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface StoredSession {
  /** SHA-256 (base64url) of the cookie value */
  id: string;
  /** the account id (subject): a local username, or `<issuer>#<subject>` for an upstream or token sign-in */
  username: string;
  /** what the session signs in to (`config`, `console`) */
  purpose: string;
  /** epoch ms */
  createdAt: number;
  expiresAt: number;
  /** the OAuth grant the session stands on (the console's); absent: none (the admin page's) */
  grant?: SessionGrant;
}

/** What a session signed in through the OAuth server keeps of its grant. */
export interface SessionGrant {
  id: string;
  /**
   * The scopes the grant gave, for an account with no local user row (upstream, token sign-in);
   * absent for a local user, whose row is read at every request instead.
   */
  scopes?: readonly string[];
  /** the usecase a token sign-in is bound to */
  usecase?: string;
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
    await this.db
      .insertInto('sessions')
      .values({
        id: s.id,
        username: s.username,
        purpose: s.purpose,
        created_at: s.createdAt,
        expires_at: s.expiresAt,
        grant_id: s.grant?.id ?? null,
        scopes: s.grant?.scopes ? JSON.stringify(s.grant.scopes) : null,
        usecase: s.grant?.usecase ?? null,
      })
      .execute();
  }

  async findSession(id: string, now: number): Promise<StoredSession | undefined> {
    const row = await this.db.selectFrom('sessions').selectAll().where('id', '=', id).where('expires_at', '>', now).executeTakeFirst();
    if (!row) return undefined;
    return {
      id: row.id,
      username: row.username,
      purpose: row.purpose,
      createdAt: Number(row.created_at),
      expiresAt: Number(row.expires_at),
      ...(row.grant_id === null ? {} : { grant: grantOf(row.grant_id, row.scopes, row.usecase) }),
    };
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

function grantOf(id: string, scopes: string | null, usecase: string | null): SessionGrant {
  const list: unknown = scopes === null ? undefined : JSON.parse(scopes);
  return {
    id,
    ...(Array.isArray(list) ? { scopes: list.filter((x): x is string => typeof x === 'string') } : {}),
    ...(usecase === null ? {} : { usecase }),
  };
}
