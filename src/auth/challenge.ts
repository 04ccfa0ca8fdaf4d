/**
 * The `WWW-Authenticate: Bearer …` challenge of a 401 (RFC 6750 §3, RFC 9728 §5.1).
 * `error_description` may only hold %x20-21 / %x23-5B / %x5D-7E, so anything else is dropped.
 */
export interface BearerChallenge {
  /** `invalid_token` when a credential was presented and refused; absent when none was sent */
  error?: 'invalid_token' | 'invalid_request' | 'insufficient_scope';
  description?: string;
  /** space-separated scopes the resource needs */
  scope?: string;
  /** the RFC 9728 protected-resource metadata URL, once that document is served */
  resourceMetadata?: string;
}

export function bearerChallenge(c: BearerChallenge = {}): string {
  const params: string[] = [];
  if (c.resourceMetadata) params.push(`resource_metadata="${clean(c.resourceMetadata)}"`);
  if (c.scope) params.push(`scope="${clean(c.scope)}"`);
  if (c.error) params.push(`error="${c.error}"`);
  if (c.description) params.push(`error_description="${clean(c.description)}"`);
  return params.length ? `Bearer ${params.join(', ')}` : 'Bearer';
}

function clean(s: string): string {
  return s.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '');
}
