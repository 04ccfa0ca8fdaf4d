/**
 * Whose usage a caller reads: admin (or anyone with authorization off) everyone's, usage:read its
 * own subject's, anyone else nothing (401 without a credential, 403 naming usage:read); a subject
 * filter naming another subject is refused for a caller bound to its own.
 */
import { describe, expect, it } from 'vitest';
import { AccessDenied } from '../../../src/core/authz/access-denied.js';
import { AuthorizationPolicy } from '../../../src/core/authz/policy.js';
import { ANONYMOUS, type Principal } from '../../../src/core/authz/principal.js';
import { checkSubjectFilter, usageVisibility } from '../../../src/core/authz/usage-visibility.js';

const policy = (mode: 'required' | 'none') => new AuthorizationPolicy({ mode, anonymousExtendedCard: false, agents: {} });
const caller = (subject: string, scopes: string[]): Principal => ({ subject, authenticated: true, scopes });

function denial(f: () => unknown): AccessDenied {
  try {
    f();
  } catch (e) {
    if (e instanceof AccessDenied) return e;
    throw e;
  }
  throw new Error('not refused');
}

describe('usageVisibility', () => {
  it('admin reads every subject', () => {
    expect(usageVisibility(policy('required'), caller('root', ['admin']))).toEqual({});
  });

  it('usage:read reads its own subject only', () => {
    expect(usageVisibility(policy('required'), caller('alice', ['usage:read', 'a2a:discover']))).toEqual({ subject: 'alice' });
  });

  it('any other credential is refused with 403 naming usage:read; no credential with 401', () => {
    const e = denial(() => usageVisibility(policy('required'), caller('alice', ['a2a:discover', 'mcp:tools'])));
    expect(e.kind).toBe('PermissionDenied');
    expect(e.requiredScopes).toEqual(['usage:read']);
    expect(denial(() => usageVisibility(policy('required'), ANONYMOUS)).kind).toBe('Unauthenticated');
  });

  it('with authorization off (auth.mode none) every caller reads everything, as for every management action', () => {
    expect(usageVisibility(policy('none'), ANONYMOUS)).toEqual({});
  });
});

describe('checkSubjectFilter', () => {
  it('lets a bound caller name itself, and an unbound caller name anyone', () => {
    expect(() => checkSubjectFilter({ subject: 'alice' }, ['alice'])).not.toThrow();
    expect(() => checkSubjectFilter({ subject: 'alice' }, undefined)).not.toThrow();
    expect(() => checkSubjectFilter({}, ['bob', null])).not.toThrow();
  });

  it('refuses a bound caller naming another subject, or records without one', () => {
    for (const asked of [['bob'], ['alice', 'bob'], [null]]) {
      const e = denial(() => checkSubjectFilter({ subject: 'alice' }, asked));
      expect(e.kind).toBe('PermissionDenied');
      expect(e.message).toContain('subject=alice');
    }
  });
});
