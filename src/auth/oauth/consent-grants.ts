/**
 * A user's consent grants as the management API shows them: which client was granted which scopes
 * (oidc-provider keeps them per grant: `openid.scope` and, per resource indicator, `resources`),
 * since when and until when. Revoking one revokes every record issued under it (codes, refresh
 * tokens) and stops its access tokens at once; the client asks for consent again next time.
 */
import { isUsecaseScope, OFFERED_SCOPES } from './scopes.js';
import type { OAuthStore } from '../../store/oauth-store.js';
import { listClients } from './client-registry.js';
import type { TokenRevocations } from './token-revocations.js';

export interface ConsentGrant {
  id: string;
  clientId: string;
  clientName?: string;
  /** every scope granted, over all resources */
  scopes: string[];
  /** resource indicator (RFC 8707) → scopes granted for it */
  resources: Record<string, string[]>;
  /** RFC 3339 */
  grantedAt?: string;
  expiresAt?: string;
}

const words = (v: unknown) => (typeof v === 'string' ? v.split(' ').filter(Boolean) : []);
const isAgentportScope = (s: string) => OFFERED_SCOPES.includes(s) || isUsecaseScope(s);
const iso = (seconds: unknown) => (typeof seconds === 'number' ? new Date(seconds * 1000).toISOString() : undefined);

export async function listConsentGrants(store: OAuthStore, username: string, now = Date.now()): Promise<ConsentGrant[]> {
  const [records, clients] = await Promise.all([store.listGrantsOfAccount(username, now), listClients(store)]);
  const names = new Map(clients.map((c) => [c.clientId, c.name]));
  return records.map((r) => {
    const p = r.payload;
    const resources = Object.fromEntries(Object.entries((p.resources ?? {}) as Record<string, unknown>).map(([k, v]) => [k, words(v)]));
    const clientId = typeof p.clientId === 'string' ? p.clientId : '';
    const name = names.get(clientId);
    const grantedAt = iso(p.iat);
    const expiresAt = r.expiresAt === undefined ? iso(p.exp) : new Date(r.expiresAt).toISOString();
    return {
      id: r.id,
      clientId,
      ...(name ? { clientName: name } : {}),
      // Agentport's scopes count as granted only per resource (what access tokens carry, capped by
      // the user's own scopes); oidc-provider also files every requested word under `openid`,
      // where they grant no access, so only the sign-in's own scopes (openid, profile…) come from there.
      scopes: [...new Set([...words((p.openid as { scope?: unknown } | undefined)?.scope).filter((w) => !isAgentportScope(w)), ...Object.values(resources).flat()])],
      resources,
      ...(grantedAt ? { grantedAt } : {}),
      ...(expiresAt ? { expiresAt } : {}),
    };
  });
}

/** Revokes `username`'s grant `grantId`; false when the user holds no such live grant. */
export async function revokeConsentGrant(store: OAuthStore, username: string, grantId: string, revocations?: TokenRevocations, now = Date.now()): Promise<boolean> {
  const grant = await store.findRecord('Grant', grantId, now);
  if (!grant || grant.payload.accountId !== username) return false;
  await store.revokeRecordsOfGrant(grantId, now);
  revocations?.grantRevoked(grantId);
  return true;
}
