/**
 * Secure by default (issue 5 §6): the first start with authentication on, when no admin key has
 * ever been stored, creates one (subject `admin`, scope `admin`) and hands it back to be printed
 * once. Only its hash is kept, so it can never be shown again; a revoked admin key is not
 * replaced (that was a decision), `agentport keys create --scope admin` makes another.
 */
import { createApiKey } from '../auth/api-keys.js';
import type { Config } from '../config/index.js';
import { SCOPES } from '../core/authz/scopes.js';
import type { StoredApiKey } from '../store/store.js';
import { NO_AUDIT, type AuditSink } from '../core/audit/audit-event.js';

export interface AdminKeyStore {
  listApiKeys(): Promise<StoredApiKey[]>;
  putApiKey(key: StoredApiKey): Promise<void>;
}

export const FIRST_ADMIN_SUBJECT = 'admin';

/** The new admin key, or undefined when one exists already (or authentication is off). */
export async function createFirstAdminKey(config: Config, store: AdminKeyStore, audit: AuditSink = NO_AUDIT): Promise<string | undefined> {
  if (config.auth.mode !== 'required') return undefined;
  if (config.auth.apiKeys.some((k) => k.scopes.includes(SCOPES.admin))) return undefined;
  const existing = await store.listApiKeys();
  if (existing.some((k) => k.scopes.includes(SCOPES.admin))) return undefined;
  const created = createApiKey({ subject: FIRST_ADMIN_SUBJECT, scopes: [SCOPES.admin] });
  await store.putApiKey(created.record);
  audit.record({ action: 'apikey.created', outcome: 'success', actor: 'system', target: `apikey:${created.record.keyId}`, details: { subject: FIRST_ADMIN_SUBJECT, scopes: [SCOPES.admin], firstStart: true } });
  return created.key;
}

/** How to make a new admin key when the first one is lost (it is never shown again: only its hash is kept). */
export const LOST_ADMIN_KEY_HINT =
  'Lost it? Stop the server and run `agentport keys create --subject admin --scope admin` with the same config: it prints a new one (`agentport keys list` shows the keys, `keys revoke <id>` retires one).';

/**
 * What the terminal shows once: the key, on a line of its own to paste into a shell, and how to
 * use it. `variable` names that line's shell variable: `agentport dev` prints its own `KEY=` (the
 * key for local calls) and names this one `ADMIN_KEY`, so the two lines cannot be mixed up.
 */
export function firstStartNotice(key: string, publicUrl: string, variable = 'KEY'): string {
  return [
    '',
    'First start: an admin API key was created. It is shown only this once; store it now:',
    '',
    `${variable}=${key}`,
    '',
    `Use it as: curl -H "X-API-Key: $${variable}" ${publicUrl}/api/v1/keys`,
    'Create narrower keys with `agentport keys create` or POST /api/v1/keys (docs/auth.md).',
    LOST_ADMIN_KEY_HINT,
    '',
  ].join('\n');
}
