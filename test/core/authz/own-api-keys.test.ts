/**
 * Whose API keys a caller manages and which key it may create (src/core/authz/own-api-keys.ts),
 * in process. The rules are the module's documented list (docs/auth.md "Key management API",
 * ADR 0022, issue 25 K4); the whole-server path is test/bindings/management/own-api-key-standing.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { AccessDenied } from '../../../src/core/authz/access-denied.js';
import { type KeyRequest, KeyRequestDenied, keyToCreate, keyVisibility } from '../../../src/core/authz/own-api-keys.js';
import { AuthorizationPolicy } from '../../../src/core/authz/policy.js';
import { ANONYMOUS, type Principal } from '../../../src/core/authz/principal.js';

const enforcing = new AuthorizationPolicy({ mode: 'required', anonymousExtendedCard: false, agents: {} });
const open = new AuthorizationPolicy({ mode: 'none', anonymousExtendedCard: false, agents: {} });

const person = (scopes: string[], more: Partial<Principal> = {}): Principal => ({ subject: 'alice', authenticated: true, scopes, ...more });
const ask = (more: Partial<KeyRequest> = {}): KeyRequest => ({ firstParty: true, scopes: ['a2a:publish'], ...more });

function denial(f: () => unknown): KeyRequestDenied {
  try {
    f();
  } catch (e) {
    if (e instanceof KeyRequestDenied) return e;
    throw e;
  }
  throw new Error('expected a KeyRequestDenied');
}

describe('keyVisibility', () => {
  it('an administrator (or anyone with authorization off) sees every key; another caller only its own subject’s', () => {
    expect(keyVisibility(enforcing, person(['admin']))).toEqual({});
    expect(keyVisibility(open, ANONYMOUS)).toEqual({});
    expect(keyVisibility(enforcing, person(['a2a:publish']))).toEqual({ subject: 'alice' });
  });

  it('no credential: 401 naming admin', () => {
    let thrown: unknown;
    try {
      keyVisibility(enforcing, ANONYMOUS);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(AccessDenied);
    expect((thrown as AccessDenied).kind).toBe('Unauthenticated');
    expect((thrown as AccessDenied).requiredScopes).toEqual(['admin']);
    expect((thrown as AccessDenied).message).toMatch(/Authentication required/);
  });
});

describe('keyToCreate', () => {
  it('an administrator creates for any subject with any scopes and usecase; its own subject when none is named', () => {
    const admin = person(['admin']);
    expect(keyToCreate(admin, {}, ask({ subject: 'carol', scopes: ['admin'], usecase: 'hr', firstParty: false }))).toEqual({ subject: 'carol', scopes: ['admin'], usecase: 'hr' });
    expect(keyToCreate(admin, {}, ask())).toEqual({ subject: 'alice', scopes: ['a2a:publish'] });
    expect(Object.hasOwn(keyToCreate(admin, {}, ask()), 'usecase')).toBe(false);
  });

  it('a person signed in first-party creates a key of its own subject within its scopes; naming itself is allowed', () => {
    const p = person(['a2a:publish', 'a2a:discover']);
    const key = keyToCreate(p, { subject: 'alice' }, ask({ subject: 'alice', scopes: ['a2a:discover'] }));
    expect(key).toEqual({ subject: 'alice', scopes: ['a2a:discover'] });
    expect(Object.hasOwn(key, 'usecase')).toBe(false);
  });

  it('naming another subject needs admin', () => {
    const d = denial(() => keyToCreate(person(['a2a:publish']), { subject: 'alice' }, ask({ subject: 'carol' })));
    expect(d.operation).toBe('administer');
    expect(d.kind).toBe('PermissionDenied');
    expect(d.requiredScopes).toEqual(['admin']);
    expect(d.message).toMatch(/another subject.*alice/);
  });

  it('an API key or an OAuth client acting for itself (client credentials) cannot mint keys', () => {
    const viaKey = denial(() => keyToCreate(person(['a2a:publish'], { keyId: '0123456789abcdef' }), { subject: 'alice' }, ask()));
    expect(viaKey.operation).toBe('create-own-apikey');
    expect(viaKey.message).toMatch(/API key or an OAuth client/);
    const client = { subject: 'client:app-1', authenticated: true, clientId: 'app-1', scopes: ['a2a:publish'] };
    const viaClient = denial(() => keyToCreate(client, { subject: 'client:app-1' }, ask()));
    expect(viaClient.operation).toBe('create-own-apikey');
    expect(viaClient.requiredScopes).toEqual(['admin']);
    // a subject merely containing "client:" is a person
    const named = { ...person(['a2a:publish']), subject: 'x-client:y' };
    expect(keyToCreate(named, { subject: 'x-client:y' }, ask())).toEqual({ subject: 'x-client:y', scopes: ['a2a:publish'] });
  });

  it('an app the person authorized (not first-party) cannot mint keys for them', () => {
    const d = denial(() => keyToCreate(person(['a2a:publish']), { subject: 'alice' }, ask({ firstParty: false })));
    expect(d.operation).toBe('create-own-apikey');
    expect(d.requiredScopes).toEqual(['admin']);
    expect(d.message).toMatch(/app you authorized/);
  });

  it('scopes beyond the caller’s are refused, naming only those; mcp:tools covers mcp:tools:<u>, not the reverse', () => {
    const d = denial(() => keyToCreate(person(['a2a:publish']), { subject: 'alice' }, ask({ scopes: ['a2a:publish', 'usage:read', 'admin'] })));
    expect(d.operation).toBe('create-own-apikey');
    expect(d.requiredScopes).toEqual(['usage:read', 'admin']);
    expect(d.message).toBe('A key cannot have scopes you do not hold: usage:read admin');
    expect(keyToCreate(person(['mcp:tools']), { subject: 'alice' }, ask({ scopes: ['mcp:tools:hr'] }))).toEqual({ subject: 'alice', scopes: ['mcp:tools:hr'] });
    expect(denial(() => keyToCreate(person(['mcp:tools:hr']), { subject: 'alice' }, ask({ scopes: ['mcp:tools'], usecase: 'hr' }))).requiredScopes).toEqual(['mcp:tools']);
  });

  it('a caller bound to one usecase makes keys bound to it; bound to several, it names one of them', () => {
    expect(keyToCreate(person(['mcp:tools:hr']), { subject: 'alice' }, ask({ scopes: ['mcp:tools:hr'] }))).toEqual({ subject: 'alice', scopes: ['mcp:tools:hr'], usecase: 'hr' });
    expect(keyToCreate(person(['a2a:publish'], { usecase: 'hr' }), { subject: 'alice' }, ask())).toEqual({ subject: 'alice', scopes: ['a2a:publish'], usecase: 'hr' });
    const two = person(['mcp:tools:hr', 'mcp:tools:finance']);
    expect(keyToCreate(two, { subject: 'alice' }, ask({ scopes: ['mcp:tools:hr'], usecase: 'finance' }))).toEqual({ subject: 'alice', scopes: ['mcp:tools:hr'], usecase: 'finance' });
    const unnamed = denial(() => keyToCreate(two, { subject: 'alice' }, ask({ scopes: ['mcp:tools:hr'] })));
    expect(unnamed.message).toMatch(/bound to usecase hr, finance/);
    const other = denial(() => keyToCreate(person(['a2a:publish'], { usecase: 'hr' }), { subject: 'alice' }, ask({ usecase: 'finance' })));
    expect(other.operation).toBe('create-own-apikey');
    expect(other.requiredScopes).toEqual(['admin']);
  });

  it('an unbound caller may bind its key to a usecase, or leave it unbound', () => {
    expect(keyToCreate(person(['a2a:publish']), { subject: 'alice' }, ask({ usecase: 'hr' }))).toEqual({ subject: 'alice', scopes: ['a2a:publish'], usecase: 'hr' });
    expect(keyToCreate(person(['a2a:publish']), { subject: 'alice' }, ask())).toEqual({ subject: 'alice', scopes: ['a2a:publish'] });
  });

  it('the key’s scopes are a copy, not the request’s array', () => {
    const asked = ask({ scopes: ['a2a:publish'] });
    const key = keyToCreate(person(['a2a:publish']), { subject: 'alice' }, asked);
    expect(key.scopes).not.toBe(asked.scopes);
    const adminKey = keyToCreate(person(['admin']), {}, asked);
    expect(adminKey.scopes).not.toBe(asked.scopes);
  });
});
