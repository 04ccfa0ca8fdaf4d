/**
 * Credentials the client attaches to every call (HTTP headers, or gRPC metadata under the same
 * lowercase names). A provider that can obtain a fresh credential implements `refresh`: on a 401 /
 * UNAUTHENTICATED the client calls it once and retries the call, so an expired or revoked token
 * costs one round trip, not a failure.
 */
export interface AuthProvider {
  /** headers for the next request */
  headers(): Promise<Record<string, string>>;
  /** drop the current credential and get another; false when there is no other to try */
  refresh?(): Promise<boolean>;
}

/** `Authorization: Bearer <token>` (an Agentport-issued or external JWT, or a stored API key). */
export function bearerAuth(token: string): AuthProvider {
  return { headers: async () => ({ authorization: `Bearer ${token}` }) };
}

/** An API key in a header; Agentport reads `X-API-Key` (the card's apiKeySecurityScheme names it). */
export function apiKeyAuth(key: string, headerName = 'X-API-Key'): AuthProvider {
  return { headers: async () => ({ [headerName.toLowerCase()]: key }) };
}

/** Fixed headers, for schemes this module does not know. */
export function headerAuth(headers: Record<string, string>): AuthProvider {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { headers: async () => ({ ...lower }) };
}
