/**
 * Where Agentport's OAuth 2.1 authorization server and its RFC 9728 documents live. One module so
 * the server (src/auth/oauth), the cards' securitySchemes and every 401 challenge agree.
 * The issuer is the server's public URL (no path), so RFC 8414 metadata is at the root.
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

/** `https://host` + path, without a trailing slash on the origin */
export function oauthUrl(publicUrl: string, path: string): string {
  return new URL(path, publicUrl).href;
}

/**
 * The RFC 9728 metadata URL of a resource served at `resourcePath` (for example `/mcp`,
 * `/a2a/echo`): the well-known prefix inserted before the path (RFC 9728 §3.1).
 */
export function protectedResourceMetadataUrl(publicUrl: string, resourcePath: string): string {
  const origin = new URL(publicUrl).origin;
  const path = resourcePath === '/' ? '' : resourcePath.replace(/\/$/, '');
  return `${origin}${PROTECTED_RESOURCE_PREFIX}${path}`;
}

/** The RFC 8707 resource identifier (and token audience) of a resource path. */
export function resourceIdentifier(publicUrl: string, resourcePath: string): string {
  const origin = new URL(publicUrl).origin;
  const path = resourcePath === '/' ? '' : resourcePath.replace(/\/$/, '');
  return `${origin}${path}`;
}
