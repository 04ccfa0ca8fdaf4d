/** perPublicUrl (src/auth/oauth-paths.ts): derived once per public URL, again after a change. */
import { expect, it } from 'vitest';
import { issuerOf, perPublicUrl } from '../../src/auth/oauth-paths.js';

it('derives once per public URL and again when it changes (a configuration reload)', () => {
  let url = 'https://example.org/agentport';
  let derived = 0;
  const issuer = perPublicUrl(
    () => url,
    (u) => (derived++, issuerOf(u)),
  );
  expect(issuer()).toBe('https://example.org/agentport');
  expect(issuer()).toBe('https://example.org/agentport');
  expect(derived).toBe(1);
  url = 'https://other.example:8443';
  expect(issuer()).toBe('https://other.example:8443');
  expect(derived).toBe(2);
});
