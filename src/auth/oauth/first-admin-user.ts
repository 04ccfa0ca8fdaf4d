/**
 * Secure by default: the first start with authentication required and no local users creates the
 * user `admin` (every scope) with a random password. `agentport serve` prints it once on the
 * terminal with the login URL (firstAdminUserNotice); it is never logged. Replicas racing at the
 * first start create it once (the insert is conditional); only the winner gets the password.
 */
import type { OAuthStore } from '../../store/oauth-store.js';
import { createUser } from './local-users.js';

export const FIRST_ADMIN_USERNAME = 'admin';

export interface FirstAdminUser {
  username: string;
  password: string;
  loginUrl: string;
}

export async function createFirstAdminUser(store: OAuthStore, o: { loginUrl: string }): Promise<FirstAdminUser | undefined> {
  if ((await store.countUsers()) > 0) return undefined;
  let created: Awaited<ReturnType<typeof createUser>>;
  try {
    created = await createUser(store, { username: FIRST_ADMIN_USERNAME, scopes: ['admin'] });
  } catch {
    return undefined; // another replica created it first
  }
  return { username: FIRST_ADMIN_USERNAME, password: created.password, loginUrl: o.loginUrl };
}

/** The once-only terminal notice of the first admin user. */
export function firstAdminUserNotice(u: FirstAdminUser): string {
  return (
    `\nFirst start: created the sign-in user '${u.username}'. Its password is shown only this once:\n\n` +
    `  password: ${u.password}\n\n` +
    `Sign in with it when an OAuth client (ChatGPT, Claude, the MCP Inspector) sends you to\n` +
    `${u.loginUrl}\n` +
    `Manage users with \`agentport users create|list|delete\`.\n`
  );
}
