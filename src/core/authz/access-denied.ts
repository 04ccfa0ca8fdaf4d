/**
 * The error of a refused action: Unauthenticated (no credential: 401 / UNAUTHENTICATED) or
 * PermissionDenied (a credential without the scope: 403 / PERMISSION_DENIED), naming the scopes
 * that would have been enough. Bindings turn `requiredScopes` and `resourceMetadata` into the
 * `WWW-Authenticate` challenge (RFC 6750 §3, RFC 9728 §5.1); the ErrorInfo carries the scopes too
 * (A2A §3.3.2: say what permission is missing).
 */
import { A2AError } from '../../protocol/a2a/errors.js';

export class AccessDenied extends A2AError {
  /** the RFC 9728 metadata URL of the resource refused, set by the server assembly */
  resourceMetadata?: string;

  constructor(
    kind: 'Unauthenticated' | 'PermissionDenied',
    readonly requiredScopes: readonly string[],
    message?: string,
  ) {
    super(kind, message ?? (kind === 'Unauthenticated' ? `Authentication required (scope: ${requiredScopes.join(' ')})` : `The credential lacks the scope this needs: ${requiredScopes.join(' ')}`), {
      metadata: { scope: requiredScopes.join(' ') },
    });
  }
}
