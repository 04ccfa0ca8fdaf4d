import { describe, expect, it } from 'vitest';
import { bearerChallenge } from '../../src/auth/challenge.js';

describe('bearerChallenge (RFC 6750 §3)', () => {
  it('is a bare Bearer without parameters', () => {
    expect(bearerChallenge()).toBe('Bearer');
  });

  it('orders resource_metadata, scope, error, error_description', () => {
    expect(bearerChallenge({ error: 'invalid_token', description: 'expired', scope: 'a b', resourceMetadata: 'https://x/.well-known/oauth-protected-resource' })).toBe(
      'Bearer resource_metadata="https://x/.well-known/oauth-protected-resource", scope="a b", error="invalid_token", error_description="expired"',
    );
  });

  it('drops characters a quoted error_description may not hold (quote, backslash, control, non-ASCII)', () => {
    expect(bearerChallenge({ description: 'a"b\\c\nd’e' })).toBe('Bearer error_description="abcde"');
  });
});
