/**
 * Where Agentport's OAuth 2.1 authorization server and its RFC 9728 documents live. One module so
 * the server (src/auth/oauth), the cards' securitySchemes and every 401 challenge agree.
 *
 * The issuer is the server's public URL, path included: behind a proxy that serves Agentport at
 * `https://example.org/agentport/` and strips the prefix, every URL the server hands out keeps
 * the prefix, while the server itself routes the stripped paths below (docs/decisions/0019-console.md).
 */
export const OAUTH_PATHS = {
  authorizationServerMetadata: '/.well-known/oauth-authorization-server',
  openidConfiguration: '/.well-known/openid-configuration',
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  register: '/oauth/register',
  revoke: '/oauth/revoke',
  introspect: '/oauth/introspect',
  jwks: '/.well-known/jwks.json',
} as const;

export const PROTECTED_RESOURCE_PREFIX = '/.well-known/oauth-protected-resource';

/** The path of the public URL without a trailing slash: `''` at the root, `/agentport` under a prefix. */
export function publicPathPrefix(publicUrl: string): string {
  return new URL(publicUrl).pathname.replace(/\/+$/, '');
}

/** The absolute path a browser uses for one of the server's own paths: the public prefix, then the path. */
export function publicPath(publicUrl: string, path: string): string {
  return `${publicPathPrefix(publicUrl)}${path}`;
}

/** The OAuth issuer identifier: the public URL, path included, without a trailing slash (RFC 8414 §2). */
export function issuerOf(publicUrl: string): string {
  return `${new URL(publicUrl).origin}${publicPathPrefix(publicUrl)}`;
}

/** The public URL of one of the server's own paths (`https://host/prefix` + path). */
export function oauthUrl(publicUrl: string, path: string): string {
  return new URL(publicPath(publicUrl, path), publicUrl).href;
}

/**
 * The RFC 9728 metadata URL the server names for a resource served at `resourcePath` (for example
 * `/mcp`, `/a2a/echo`), as its `WWW-Authenticate resource_metadata`: the well-known prefix inserted
 * before the resource path (RFC 9728 §3.1), below the public URL's own path. At the root that is
 * exactly §3.1; under a prefix it is the URL a prefix-stripping proxy forwards (the §3.1 form at the
 * origin's root is answered too, when the proxy forwards it: metadataRequestPath).
 */
export function protectedResourceMetadataUrl(publicUrl: string, resourcePath: string): string {
  const path = resourcePath === '/' ? '' : resourcePath.replace(/\/$/, '');
  return oauthUrl(publicUrl, `${PROTECTED_RESOURCE_PREFIX}${path}`);
}

/** The RFC 8707 resource identifier (and token audience) of a resource path. */
export function resourceIdentifier(publicUrl: string, resourcePath: string): string {
  const path = resourcePath === '/' ? '' : resourcePath.replace(/\/$/, '');
  return `${issuerOf(publicUrl)}${path}`;
}

/**
 * `derive(publicUrl())`, computed again only when the public URL changes (a configuration
 * reload): for values asked on every request that would otherwise parse URLs each time.
 */
export function perPublicUrl<T>(publicUrl: () => string, derive: (publicUrl: string) => T): () => T {
  let url: string | undefined;
  let value: T;
  return () => {
    const now = publicUrl();
    if (now !== url) {
      url = now;
      value = derive(now);
    }
    return value;
  };
}
