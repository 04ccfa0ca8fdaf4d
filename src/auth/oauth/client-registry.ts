/**
 * Clients an administrator registers (`agentport clients create`, `POST /api/v1/clients`, the
 * `/mcp/config/` page): stored as oidc-provider `Client` records, so the provider loads and
 * validates them like dynamically registered ones. Machine clients (client credentials) exist
 * only this way; dynamic registration refuses that grant. Only these clients may hold `admin`.
 */
import { randomBytes } from 'node:crypto';
import type { OAuthStore } from '../../store/oauth-store.js';
import { unknownScopeMessage } from '../../core/authz/scope-names.js';
import { ADMIN_CLIENT_MARKER, ADMINISTRATOR } from './client-scope-ceiling.js';
import { TOKEN_EXCHANGE_GRANT } from './token-exchange-grant.js';

const MODEL = 'Client';

export class ClientInputError extends Error {}

export interface NewClient {
  name: string;
  /** `machine`: client credentials, confidential; `public`: authorization code + PKCE, no secret; `confidential`: authorization code with a secret */
  kind: 'machine' | 'public' | 'confidential';
  redirectUris?: readonly string[];
  scopes?: readonly string[];
  /** may exchange a user's access token for a narrower one (RFC 8693, token-exchange-grant.ts); never a public client */
  tokenExchange?: boolean;
}

export interface ClientSummary {
  clientId: string;
  name?: string;
  grantTypes: string[];
  redirectUris: string[];
  scope?: string;
  authMethod: string;
  /** seconds since epoch, as RFC 7591 */
  issuedAt?: number;
}

export async function createClient(store: OAuthStore, c: NewClient, now = Date.now()): Promise<{ client: ClientSummary; clientSecret?: string }> {
  if (!c.name.trim() || c.name.length > 200) throw new ClientInputError('name must be 1-200 characters');
  const unknownScope = unknownScopeMessage(c.scopes ?? [], ['openid', 'offline_access']);
  if (unknownScope) throw new ClientInputError(unknownScope);
  const redirectUris = [...(c.redirectUris ?? [])];
  for (const u of redirectUris) if (!URL.canParse(u) || u.includes('#')) throw new ClientInputError(`redirect URI ${u} is not an absolute URL without fragment`);
  // RFC 8693 §2.1: the exchanging client is the actor named in every token, so it must authenticate.
  if (c.tokenExchange && c.kind === 'public') throw new ClientInputError('a public client cannot be trusted with token exchange: it has no secret to authenticate with');
  if (c.kind !== 'machine' && redirectUris.length === 0) throw new ClientInputError('a client that signs users in needs at least one redirect URI');
  const clientId = `ap-${randomBytes(12).toString('base64url')}`;
  const secret = c.kind === 'public' ? undefined : randomBytes(32).toString('base64url');
  const metadata: Record<string, unknown> = {
    client_id: clientId,
    client_name: c.name,
    client_id_issued_at: Math.floor(now / 1000),
    grant_types: [...(c.kind === 'machine' ? ['client_credentials'] : ['authorization_code', 'refresh_token']), ...(c.tokenExchange ? [TOKEN_EXCHANGE_GRANT] : [])],
    response_types: c.kind === 'machine' ? [] : ['code'],
    redirect_uris: redirectUris,
    token_endpoint_auth_method: c.kind === 'public' ? 'none' : 'client_secret_basic',
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    ...(c.scopes?.length ? { scope: c.scopes.join(' ') } : {}),
    // Exempts the client from the ceiling of self-registered clients (client-scope-ceiling.ts).
    [ADMIN_CLIENT_MARKER]: ADMINISTRATOR,
  };
  await store.upsertRecord(MODEL, clientId, { payload: metadata });
  return { client: summaryOf(clientId, metadata), ...(secret ? { clientSecret: secret } : {}) };
}

export async function listClients(store: OAuthStore): Promise<ClientSummary[]> {
  return (await store.listRecords(MODEL, Date.now())).map((r) => summaryOf(r.id, r.payload));
}

export async function deleteClient(store: OAuthStore, clientId: string): Promise<boolean> {
  return store.deleteRecord(MODEL, clientId);
}

function summaryOf(clientId: string, m: Record<string, unknown>): ClientSummary {
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  return {
    clientId,
    ...(typeof m.client_name === 'string' ? { name: m.client_name } : {}),
    grantTypes: list(m.grant_types),
    redirectUris: list(m.redirect_uris),
    ...(typeof m.scope === 'string' ? { scope: m.scope } : {}),
    authMethod: typeof m.token_endpoint_auth_method === 'string' ? m.token_endpoint_auth_method : 'client_secret_basic',
    ...(typeof m.client_id_issued_at === 'number' ? { issuedAt: m.client_id_issued_at } : {}),
  };
}
