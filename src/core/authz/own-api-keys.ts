/**
 * Whose API keys a caller may manage (issue 16, docs/auth.md "Key management API"): an
 * administrator (scope `admin`, or every caller when authorization is off) every key, for any
 * subject; any other authenticated caller only keys whose subject is its own, and creates one only
 * within what it holds itself (docs/decisions/0022-console-sessions-for-every-account.md):
 *
 * - the subject is the caller's own: naming another needs `admin`;
 * - every scope of the key is one the caller holds (`mcp:tools` covers `mcp:tools:<u>`, never the
 *   other way round); `admin` is never among them, since the caller would hold it;
 * - a caller bound to usecases (a token sign-in's usecase, or only `mcp:tools:<u>` scopes) makes
 *   keys bound to one of them: otherwise a key of its A2A scopes alone would see every usecase;
 * - the caller is a person signed in (a console session, a user's OAuth or upstream token), not an
 *   API key or an OAuth client acting for itself: a key that mints keys would let a leaked key
 *   outlive its own revocation through the keys it made;
 * - and signed in first-party (issue 25, K4): the console (its session or its own access token),
 *   never an app the person authorized, which would otherwise turn a grant of `a2a:publish` into
 *   keys that survive revoking the app. The caller says which clients are first-party.
 */
import { AccessDenied } from './access-denied.js';
import type { AuthorizationPolicy } from './policy.js';
import type { Principal } from './principal.js';
import { holdsScope, SCOPES, usecasesOf } from './scopes.js';

/** `subject` undefined: every key; else only keys of this subject. */
export interface KeyVisibility {
  subject?: string;
}

/** A refusal naming the operation it refused, for the `authz.denied` audit record. */
export class KeyRequestDenied extends AccessDenied {
  constructor(
    readonly operation: 'administer' | 'create-own-apikey',
    requiredScopes: readonly string[],
    message: string,
  ) {
    super('PermissionDenied', requiredScopes, message);
  }
}

/** Throws AccessDenied (401) for a caller without a credential. */
export function keyVisibility(policy: AuthorizationPolicy, principal: Principal): KeyVisibility {
  if (policy.allows(principal, 'administer')) return {};
  if (!principal.authenticated) throw new AccessDenied('Unauthenticated', [SCOPES.admin], 'Authentication required: a credential manages its own API keys (scope admin: everyone’s)');
  return { subject: principal.subject };
}

export interface KeyRequest {
  /** whether the caller signed in through Agentport's own client (the console), not a third-party app */
  firstParty: boolean;
  subject?: string;
  scopes: readonly string[];
  usecase?: string;
}

/** The key to create, with its subject (and a bound caller's usecase) filled in; throws KeyRequestDenied when beyond the caller. */
export function keyToCreate(principal: Principal, visibility: KeyVisibility, asked: KeyRequest): { subject: string; scopes: string[]; usecase?: string } {
  const scopes = [...asked.scopes];
  if (visibility.subject === undefined) return { subject: asked.subject ?? principal.subject, scopes, ...(asked.usecase === undefined ? {} : { usecase: asked.usecase }) };
  const own = visibility.subject;
  if (asked.subject !== undefined && asked.subject !== own) {
    throw new KeyRequestDenied('administer', [SCOPES.admin], `Only an administrator creates keys for another subject; yours are subject ${own}`);
  }
  if (principal.keyId !== undefined || own.startsWith('client:')) {
    throw new KeyRequestDenied('create-own-apikey', [SCOPES.admin], 'An API key or an OAuth client cannot create API keys for itself; sign in (the console, or an OAuth token of a user) to create one');
  }
  if (!asked.firstParty) {
    throw new KeyRequestDenied('create-own-apikey', [SCOPES.admin], 'An app you authorized cannot create API keys for you; create one in the console (keys made there end with your account)');
  }
  const beyond = scopes.filter((s) => !holdsScope(principal, s));
  if (beyond.length > 0) throw new KeyRequestDenied('create-own-apikey', beyond, `A key cannot have scopes you do not hold: ${beyond.join(' ')}`);
  const bound = usecasesOf(principal);
  const usecase = asked.usecase ?? (bound?.length === 1 ? bound[0] : undefined);
  if (bound !== undefined && (usecase === undefined || !bound.includes(usecase))) {
    throw new KeyRequestDenied('create-own-apikey', [SCOPES.admin], `Your credential is bound to usecase ${bound.join(', ') || '(none)'}; so are your keys: give one of them as usecase`);
  }
  return { subject: own, scopes, ...(usecase === undefined ? {} : { usecase }) };
}
