/**
 * Whose usage a caller may read (issue 13, docs/usage.md "Who sees what"): an administrator (scope
 * `admin`, or every caller when authorization is off) reads everyone's; a holder of `usage:read`
 * only its own, as if every query carried `subject=<its subject>`. Asking by name for another
 * subject's usage is refused rather than answered empty, so a script with the wrong credential
 * learns that at once instead of reporting zero calls.
 */
import { AccessDenied } from './access-denied.js';
import type { AuthorizationPolicy } from './policy.js';
import type { Principal } from './principal.js';
import { SCOPES } from './scopes.js';

/** `subject` undefined: every subject's usage; else only this subject's. */
export interface UsageVisibility {
  subject?: string;
}

/** Throws AccessDenied (401 without a credential, 403 without `usage:read` or `admin`). */
export function usageVisibility(policy: AuthorizationPolicy, principal: Principal): UsageVisibility {
  policy.authorize(principal, 'read-usage');
  return policy.allows(principal, 'administer') ? {} : { subject: principal.subject };
}

/**
 * Checks a subject filter against what the caller may see. A caller bound to its own subject may
 * name only that subject; the answer is a 403 naming the rule, never an empty result.
 */
export function checkSubjectFilter(visibility: UsageVisibility, requested: readonly (string | null)[] | undefined): void {
  if (visibility.subject === undefined || requested === undefined) return;
  const other = requested.find((s) => s !== visibility.subject);
  if (other === undefined) return;
  throw new AccessDenied('PermissionDenied', [SCOPES.admin], `Only an administrator reads the usage of other subjects; this credential reads its own (subject=${visibility.subject})`);
}
