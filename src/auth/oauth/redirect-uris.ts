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

/**
 * Whether a registering client may use `uri`: loopback, an exact listed URI, any https with `*`,
 * or, for a listed `https://host/path/*`, that path and one more segment (a per-app callback id).
 */
export function isAllowedRedirectUri(uri: string, allowed: readonly string[]): boolean {
  if (isLoopbackRedirect(uri)) return true;
  if (allowed.includes(uri)) return true;
  if (allowed.includes('*') && URL.parse(uri)?.protocol === 'https:') return true;
  return allowed.some((a) => a.endsWith('/*') && a.startsWith('https:') && matchesOneSegment(a.slice(0, -1), uri));
}

const SEGMENT = /^[A-Za-z0-9._~-]{1,200}$/;

function matchesOneSegment(prefix: string, uri: string): boolean {
  if (!uri.startsWith(prefix)) return false;
  const u = URL.parse(uri);
  // The whole URI as written, no query or fragment: one plain segment after the prefix.
  return u !== null && u.href === uri && SEGMENT.test(uri.slice(prefix.length));
}
