/**
 * Outbound network: every request to a URL someone else chose (push webhooks, remote agents and MCP
 * servers, the upstream OIDC provider, client metadata documents) is checked by the SSRF guard and
 * sent through the one pinned client. Sits at the bottom beside protocol and config
 * (docs/decisions/0013-dependency-rules.md).
 */
export { SsrfGuard, SsrfRejectedError, type HostResolver, type SsrfCheckResult, type SsrfGuardOptions, type SsrfRejectionKind } from './ssrf-guard.js';
export { pinnedLookup } from './pinned-lookup.js';
export { pinnedRequest, type PinnedRequestOptions } from './pinned-request.js';
export { guardedFetch } from './guarded-fetch.js';
