/**
 * Secure by default: the first start with authentication required and no local users creates the
 * user `admin` (every scope) with a random password, printed once on the terminal with the login
 * URL, never logged. Replicas racing at the first start create it once (the insert is
 * conditional); only the winner prints.
 */
import type { OAuthStore } from '../../store/oauth-store.js';
import { createUser } from './local-users.js';

export const FIRST_ADMIN_USERNAME = 'admin';

export async function createFirstAdminUser(store: OAuthStore, o: { loginUrl: string; print?: (text: string) => void }): Promise<{ username: string; password: string } | undefined> {
  if ((await store.countUsers()) > 0) return undefined;
  let created;
  try {
    created = await createUser(store, { username: FIRST_ADMIN_USERNAME, scopes: ['admin'] });
  } catch {
    return undefined; // another replica created it first
  }
  const print = o.print ?? ((t: string) => process.stderr.write(t));
  print(
    `\nAgentport: first start, created the sign-in user '${FIRST_ADMIN_USERNAME}'.\n` +
      `  password: ${created.password}\n` +
      `  It is shown only now. Sign in when an OAuth client (ChatGPT, Claude, the MCP Inspector) sends you to\n` +
      `  ${o.loginUrl}\n` +
      `  Manage users with \`agentport users create|list|delete\`.\n\n`,
  );
  return { username: FIRST_ADMIN_USERNAME, password: created.password };
}
