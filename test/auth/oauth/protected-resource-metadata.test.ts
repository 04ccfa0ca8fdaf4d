/**
 * Which RFC 9728 document a metadata request asks for (metadataRequestPath), at the root and under
 * a public path prefix, and the document itself. Pins the root resource under a prefix: RFC 9728
 * §3.1 puts the document of `https://host/agentport` at
 * `https://host/.well-known/oauth-protected-resource/agentport`, which must answer the root
 * resource ('/'), not a resource named `/agentport` (that is no resource of ours: 404).
 */
import { describe, expect, it } from 'vitest';
import { metadataRequestPath, protectedResourceMetadata } from '../../../src/auth/oauth/protected-resource-metadata.js';

const WK = '/.well-known/oauth-protected-resource';

describe('metadataRequestPath at the root', () => {
  it.each([
    [WK, '/'],
    [`${WK}/`, '/'],
    [`${WK}/mcp`, '/mcp'],
    [`${WK}/a2a/echo`, '/a2a/echo'],
    // the 2025-03-26-era form: the well-known name appended to the resource path
    [`/mcp${WK}`, '/mcp'],
    [`/a2a/echo/mcp${WK}`, '/a2a/echo/mcp'],
  ])('reads %s as the document of %s', (path, resource) => {
    expect(metadataRequestPath(path)).toBe(resource);
  });

  it.each(['/mcp', '/.well-known/oauth-protected-resourcex', '/.well-known/openid-configuration'])('does not take %s', (path) => {
    expect(metadataRequestPath(path)).toBeUndefined();
  });
});

describe('metadataRequestPath under the prefix /agentport', () => {
  it.each([
    // RFC 9728 §3.1 at the origin root: the prefix after the well-known name
    [`${WK}/agentport`, '/'],
    [`${WK}/agentport/`, '/'],
    [`${WK}/agentport/mcp`, '/mcp'],
    [`${WK}/agentport/a2a/echo`, '/a2a/echo'],
    // what a prefix-stripping proxy forwards of the prefixed document URL
    [WK, '/'],
    [`${WK}/mcp`, '/mcp'],
    // a segment that only starts like the prefix is not below it
    [`${WK}/agentportal/mcp`, '/agentportal/mcp'],
  ])('reads %s as the document of %s', (path, resource) => {
    expect(metadataRequestPath(path, '/agentport')).toBe(resource);
  });
});

describe('the document', () => {
  const doc = (resourcePath: string, publicUrl = 'https://host.example/agentport') =>
    protectedResourceMetadata({ publicUrl, authorizationServers: [publicUrl], resourcePath, agentName: (id) => (id === 'echo' ? 'Echo' : undefined) });

  it('of the root resource under a prefix names the prefixed server, with every scope', () => {
    expect(doc(metadataRequestPath(`${WK}/agentport`, '/agentport')!)).toEqual({
      resource: 'https://host.example/agentport',
      authorization_servers: ['https://host.example/agentport'],
      scopes_supported: ['a2a:discover', 'a2a:publish', 'mcp:tools', 'usage:read', 'admin'],
      bearer_methods_supported: ['header'],
      resource_name: 'Agentport',
    });
  });

  it('of a resource that is not ours, or an agent that does not exist, is none', () => {
    expect(doc('/agentport')).toBeUndefined();
    expect(doc('/a2a/nobody')).toBeUndefined();
    expect(doc('/a2a/%E0%A4%A')).toBeUndefined();
  });

  it('names each resource with its own scopes and name', () => {
    expect(doc('/mcp')).toMatchObject({ resource: 'https://host.example/agentport/mcp', scopes_supported: ['mcp:tools'], resource_name: 'Agentport (MCP)' });
    expect(doc('/a2a/echo')).toMatchObject({ resource: 'https://host.example/agentport/a2a/echo', scopes_supported: ['a2a:discover', 'a2a:publish'], resource_name: 'Echo (A2A)' });
    expect(doc('/a2a/echo/mcp')).toMatchObject({ resource: 'https://host.example/agentport/a2a/echo/mcp', scopes_supported: ['mcp:tools'], resource_name: 'Echo (MCP)' });
    expect(doc('/api/v1')).toMatchObject({ resource: 'https://host.example/agentport/api/v1', scopes_supported: ['admin', 'usage:read'], resource_name: 'Agentport management API' });
    expect(doc('/', 'https://host.example')).toMatchObject({ resource: 'https://host.example', resource_name: 'Agentport' });
  });
});
