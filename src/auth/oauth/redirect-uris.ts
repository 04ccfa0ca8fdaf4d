/**
 * Redirect URI rules. At the authorization endpoint a redirect URI must equal a registered one,
 * except that a loopback URI matches on any port (RFC 8252 §7.3: native apps listen on an
 * ephemeral port). At registration (dynamic or by metadata document) only loopback URIs and those
 * listed in `auth.oauth.allowedRedirectUris` are accepted, so an open registration endpoint cannot
 * be used to send codes to an arbitrary site.
 */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function isLoopbackRedirect(uri: string): boolean {
  const u = URL.parse(uri);
  return u !== null && u.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname);
}

/** Exact match, or the same loopback URI on another port. */
export function redirectUriMatches(registered: string, presented: string): boolean {
  if (registered === presented) return true;
  if (!isLoopbackRedirect(registered) || !isLoopbackRedirect(presented)) return false;
  const a = new URL(registered);
  const b = new URL(presented);
  // Compared as written, not normalised: only the port may differ.
  return withoutPort(registered, a) === withoutPort(presented, b);
}

function withoutPort(raw: string, u: URL): string {
  return u.port ? raw.replace(`${u.hostname}:${u.port}`, u.hostname) : raw;
}

/** Whether a registering client may use `uri`: loopback, an exact listed URI, or any https with `*`. */
export function isAllowedRedirectUri(uri: string, allowed: readonly string[]): boolean {
  if (isLoopbackRedirect(uri)) return true;
  if (allowed.includes(uri)) return true;
  return allowed.includes('*') && URL.parse(uri)?.protocol === 'https:';
}
