/** The public URL's path prefix, dropped by the edge when a proxy passes it on (a whole segment only). */
import { describe, expect, it } from 'vitest';
import { withoutPrefix } from '../../src/edge/edge.js';

describe('withoutPrefix', () => {
  it.each([
    ['/agentport/mcp', '/mcp'],
    ['/agentport/mcp?x=1', '/mcp?x=1'],
    ['/agentport', '/'],
    ['/agentport/', '/'],
    ['/agentport?x=1', '/?x=1'],
  ])('drops the prefix of %s', (url, expected) => {
    expect(withoutPrefix(url, '/agentport')).toBe(expected);
  });

  it.each(['/mcp', '/agentportal/mcp', '/x/agentport/mcp', '/.well-known/oauth-authorization-server/agentport'])('leaves %s as it is (not below the prefix)', (url) => {
    expect(withoutPrefix(url, '/agentport')).toBe(url);
  });
});
