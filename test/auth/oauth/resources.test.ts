/**
 * The RFC 8707 resources the server answers for (src/auth/oauth/resources.ts) and the URLs of
 * src/auth/oauth-paths.ts, at the root and under a path prefix. A resource that is accepted here
 * becomes a token audience, so each refusal is pinned: another origin, a path outside the prefix,
 * a query or fragment, credentials, an agent that does not exist, a path that is no resource.
 */
import { describe, expect, it } from 'vitest';
import { baseAudience, isOwnResource, resourcePathOf, type ResourceCatalog } from '../../../src/auth/oauth/resources.js';
import { issuerOf, oauthUrl, protectedResourceMetadataUrl, publicPath, publicPathPrefix, resourceIdentifier } from '../../../src/auth/oauth-paths.js';

const catalog = (publicUrl: string, audiences?: string[]): ResourceCatalog => ({ publicUrl: () => publicUrl, hasAgent: (id) => id === 'echo' || id === 'a b', ...(audiences ? { audiences } : {}) });

describe('resourcePathOf', () => {
  it.each([
    ['/', '/'],
    ['', '/'],
    ['/mcp', '/mcp'],
    ['/mcp/', '/mcp'],
    ['/api/v1', '/api/v1'],
    ['/a2a/echo', '/a2a/echo'],
    ['/a2a/echo/mcp', '/a2a/echo/mcp'],
    ['/a2a/echo//', '/a2a/echo'],
  ])('reads %s as %s', (path, expected) => {
    expect(resourcePathOf(path)).toBe(expected);
  });

  it.each(['/a2a', '/a2a/', '/a2a/echo/tasks', '/x/a2a/echo', '/api', '/api/v1/keys', '/other', '/mcpx'])('%s is no resource', (path) => {
    expect(resourcePathOf(path)).toBeUndefined();
  });
});

describe('isOwnResource at the root', () => {
  const c = catalog('https://host.example');
  it.each([
    'https://host.example',
    'https://host.example/',
    'https://host.example/mcp',
    'https://host.example/mcp/',
    'https://host.example/api/v1',
    'https://host.example/a2a/echo',
    'https://host.example/a2a/echo/mcp',
    'https://host.example/a2a/a%20b',
  ])('accepts %s', (r) => {
    expect(isOwnResource(c, r)).toBe(true);
  });

  it.each([
    'https://other.example/mcp',
    'http://host.example/mcp',
    'https://host.example:8443/mcp',
    'https://host.example/mcp?x=1',
    'https://host.example/mcp#f',
    'https://u:p@host.example/mcp',
    'https://u@host.example/mcp',
    'https://host.example/a2a/nobody',
    'https://host.example/a2a/%E0%A4%A',
    'https://host.example/a2a/echo/tasks',
    'not a url',
    '/mcp',
    // the same place written another way is not the identifier: only the exact name (one trailing slash dropped) is
    'https://host.example/mcp//',
    'https://HOST.example/mcp',
    'https://host.example:443/mcp',
  ])('refuses %s', (r) => {
    expect(isOwnResource(c, r)).toBe(false);
  });

  it('accepts a configured extra audience as it is, and uses the first as the base audience', () => {
    const extra = catalog('https://host.example', ['urn:agentport', 'https://elsewhere.example/x?y']);
    expect(isOwnResource(extra, 'urn:agentport')).toBe(true);
    expect(isOwnResource(extra, 'https://elsewhere.example/x?y')).toBe(true);
    expect(baseAudience(extra)).toBe('urn:agentport');
    expect(baseAudience(c)).toBe('https://host.example');
  });
});

describe('isOwnResource under the prefix /agentport', () => {
  const c = catalog('https://host.example/agentport');
  it.each(['https://host.example/agentport', 'https://host.example/agentport/', 'https://host.example/agentport/mcp', 'https://host.example/agentport/a2a/echo'])('accepts %s', (r) => {
    expect(isOwnResource(c, r)).toBe(true);
  });

  it.each(['https://host.example/mcp', 'https://host.example/', 'https://host.example/agentportal/mcp', 'https://host.example/x/agentport/mcp', 'https://host.example/agentport/a2a/nobody'])('refuses %s', (r) => {
    expect(isOwnResource(c, r)).toBe(false);
  });

  it('accepts a public URL given with more than one trailing slash as it is written', () => {
    // the exact comparison drops one slash only; the public URL itself still names the server
    expect(isOwnResource(catalog('https://host.example/agentport//'), 'https://host.example/agentport//')).toBe(true);
  });

  it('names its base audience with the prefix', () => {
    expect(baseAudience(c)).toBe('https://host.example/agentport');
  });
});

describe('isOwnResource: the public URL as written, and agents', () => {
  it('accepts the public URL as written (host case, default port) where the identifier is normalised', () => {
    expect(isOwnResource(catalog('https://HOST.example:443'), 'https://HOST.example:443')).toBe(true);
    expect(isOwnResource(catalog('https://HOST.example:443'), 'https://host.example')).toBe(true);
    expect(isOwnResource(catalog('https://host.example'), 'https://HOST.example:443')).toBe(false);
  });

  // The configuration refuses such public URLs; the catalog is an interface, so the refusal is pinned here.
  it.each(['https://host.example/?q', 'https://host.example/#f', 'https://u@host.example', 'https://:p@host.example'])(
    'refuses a public URL written with a query, fragment or credentials even as itself: %s',
    (publicUrl) => {
      expect(isOwnResource(catalog(publicUrl), publicUrl)).toBe(false);
    },
  );

  it('refuses a segment that is not valid percent-encoding even where every name is an agent', () => {
    const everyone: ResourceCatalog = { publicUrl: () => 'https://host.example', hasAgent: () => true };
    expect(isOwnResource(everyone, 'https://host.example/a2a/%E0%A4%A')).toBe(false);
    expect(isOwnResource(everyone, 'https://host.example/a2a/%E0%A4%A/mcp')).toBe(false);
    expect(isOwnResource(everyone, 'https://host.example/a2a/any')).toBe(true);
  });

  it('asks the catalog for the decoded agent id, only for agent resources', () => {
    const asked: string[] = [];
    const c: ResourceCatalog = { publicUrl: () => 'https://host.example/agentport', hasAgent: (id) => (asked.push(id), id === 'a/b') };
    expect(isOwnResource(c, 'https://host.example/agentport/a2a/a%2Fb/mcp')).toBe(true);
    expect(isOwnResource(c, 'https://host.example/agentport/mcp')).toBe(true);
    expect(isOwnResource(c, 'https://host.example/agentport/api/v1/')).toBe(true);
    expect(isOwnResource(c, 'https://host.example/agentport/a2a/a%20b')).toBe(false);
    expect(asked).toEqual(['a/b', 'a b']);
  });

  it('refuses a resource whose agent segment is not written as a URL writes it', () => {
    expect(isOwnResource(catalog('https://host.example'), 'https://host.example/a2a/a b')).toBe(false);
  });
});

describe('oauth-paths', () => {
  it.each([
    ['https://host.example', ''],
    ['https://host.example/', ''],
    ['https://host.example/agentport', '/agentport'],
    ['https://host.example/agentport//', '/agentport'],
  ])('the path prefix of %s is "%s"', (url, prefix) => {
    expect(publicPathPrefix(url)).toBe(prefix);
  });

  it('builds the issuer, public paths and URLs with the prefix, and without one at the root', () => {
    expect(issuerOf('https://host.example/')).toBe('https://host.example');
    expect(issuerOf('https://host.example:8443/agentport/')).toBe('https://host.example:8443/agentport');
    expect(publicPath('https://host.example/agentport', '/oauth/token')).toBe('/agentport/oauth/token');
    expect(oauthUrl('https://host.example/agentport', '/oauth/token')).toBe('https://host.example/agentport/oauth/token');
    expect(oauthUrl('https://host.example', '/oauth/token')).toBe('https://host.example/oauth/token');
  });

  it.each([
    ['https://host.example', '/', 'https://host.example/.well-known/oauth-protected-resource', 'https://host.example'],
    ['https://host.example', '/mcp/', 'https://host.example/.well-known/oauth-protected-resource/mcp', 'https://host.example/mcp'],
    ['https://host.example/agentport', '/', 'https://host.example/agentport/.well-known/oauth-protected-resource', 'https://host.example/agentport'],
    ['https://host.example/agentport', '/a2a/echo', 'https://host.example/agentport/.well-known/oauth-protected-resource/a2a/echo', 'https://host.example/agentport/a2a/echo'],
  ])('on %s, resource %s: metadata at %s, identifier %s', (url, path, metadata, identifier) => {
    expect(protectedResourceMetadataUrl(url, path)).toBe(metadata);
    expect(resourceIdentifier(url, path)).toBe(identifier);
  });
});
