/**
 * Local users: the people who sign in on the login page. Created by `agentport users create`, the
 * first start (user `admin`) and `POST /api/v1/users`. A user's scopes cap what any client acting
 * for the user can be granted.
 */
import { randomBytes } from 'node:crypto';
import { unknownScopeMessage } from '../../core/authz/scope-names.js';
import { SCOPES } from './scopes.js';
import type { OAuthStore, StoredUser } from '../../store/oauth-store.js';
import { hashPassword, verifyPassword } from './password-hash.js';

export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
export const MIN_PASSWORD_LENGTH = 12;
export const DEFAULT_USER_SCOPES: readonly string[] = [SCOPES.discover, SCOPES.publish, SCOPES.mcpTools];

export class UserInputError extends Error {}

export async function createUser(store: OAuthStore, o: { username: string; password?: string; scopes?: readonly string[] }): Promise<{ user: StoredUser; password: string }> {
  if (!USERNAME_PATTERN.test(o.username)) throw new UserInputError('username must be 1-64 letters, digits, . _ @ or -, starting with a letter or digit');
  const unknownScope = o.scopes === undefined ? undefined : unknownScopeMessage(o.scopes);
  if (unknownScope) throw new UserInputError(unknownScope);
  const password = o.password ?? randomBytes(18).toString('base64url');
  if (password.length < MIN_PASSWORD_LENGTH) throw new UserInputError(`password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  const user: StoredUser = {
    username: o.username,
    passwordHash: await hashPassword(password),
    scopes: [...(o.scopes ?? DEFAULT_USER_SCOPES)],
    createdAt: Date.now(),
  };
  if (!(await store.putUser(user))) throw new UserInputError(`user '${o.username}' already exists`);
  return { user, password };
}

/** The user when the password is right; undefined otherwise (same cost either way). */
export async function authenticateUser(store: OAuthStore, username: string, password: string): Promise<StoredUser | undefined> {
  const user = USERNAME_PATTERN.test(username) ? await store.getUser(username) : undefined;
  const ok = await verifyPassword(password, user?.passwordHash);
  return ok ? user : undefined;
}

/** Users as the CLI and API show them: never the hash. */
export function publicUser(u: StoredUser): { username: string; scopes: string[]; createdAt: string } {
  return { username: u.username, scopes: u.scopes, createdAt: new Date(u.createdAt).toISOString() };
}
