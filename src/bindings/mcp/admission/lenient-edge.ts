/**
 * Deliberate leniency before the SDK sees a request (digest §7, "edge shim"). Real clients send
 * shapes both SDK lines reject: `Accept: *\/*`, a single media type or none (Claude builds,
 * python-sdk#2349, claude-ai-mcp#76, claude-code#45368), and an `MCP-Protocol-Version` header that
 * disagrees with the `_meta` envelope (claude-code#93290, SparkyFitness#2155). Each correction is
 * returned so the caller can log it; the era is still chosen by `_meta` alone.
 */

export const MODERN_VERSIONS: readonly string[] = ['2026-07-28'];
export const LEGACY_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26'];
const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';

export interface EdgeCorrection {
  header: string;
  from: string | undefined;
  to: string | undefined;
  reason: string;
}

/** `Accept` as the SDK wants it on a POST: both JSON and SSE. */
const WANTED_ACCEPT = 'application/json, text/event-stream';

export function normaliseAccept(accept: string | undefined): { value: string; correction?: EdgeCorrection } {
  const want = WANTED_ACCEPT;
  // What the SDK clients send, exactly: nothing to split (this runs on every POST).
  if (accept === want) return { value: accept };
  const types = (accept ?? '')
    .split(',')
    .map((t) => t.split(';')[0]!.trim().toLowerCase())
    .filter(Boolean);
  const json = types.includes('application/json');
  const sse = types.includes('text/event-stream');
  if (json && sse) return { value: accept! };
  const reason = !types.length ? 'missing' : types.includes('*/*') || types.includes('application/*') ? 'wildcard' : 'single media type';
  return { value: want, correction: { header: 'accept', from: accept, to: want, reason } };
}

/** The `_meta` protocol version of a single JSON-RPC message, when it carries one. */
export function envelopeVersion(body: unknown): string | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const params = (body as { params?: unknown }).params;
  if (!params || typeof params !== 'object') return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  if (!meta || typeof meta !== 'object') return undefined;
  const v = (meta as Record<string, unknown>)[PROTOCOL_VERSION_META];
  return typeof v === 'string' ? v : undefined;
}

function methodOf(body: unknown): unknown {
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as { method?: unknown }).method : undefined;
}

/**
 * The `MCP-Protocol-Version` header to forward (undefined = drop it). A modern `_meta` version
 * wins over the header; without one, a header naming an unknown revision (or a modern one on
 * `initialize`) is dropped so the request is served as the legacy message it is.
 */
export function reconcileVersionHeader(header: string | undefined, body: unknown): { value: string | undefined; correction?: EdgeCorrection } {
  const meta = envelopeVersion(body);
  if (meta !== undefined && MODERN_VERSIONS.includes(meta)) {
    if (header === meta) return { value: header };
    return { value: meta, correction: { header: 'mcp-protocol-version', from: header, to: meta, reason: 'disagrees with _meta' } };
  }
  if (meta !== undefined) return { value: header }; // an unsupported envelope version: the SDK answers -32022
  if (header === undefined || LEGACY_VERSIONS.includes(header)) return { value: header };
  // 2026-07-28 requires 400 -32602 for a modern-headed request without the `_meta` envelope
  // (conformance sep-2575-request-meta-invalid-*), so only an `initialize`, which is legacy by
  // definition, is still served after dropping the header (docs/compliance.md, MCP).
  if (MODERN_VERSIONS.includes(header) && methodOf(body) !== 'initialize') return { value: header };
  return { value: undefined, correction: { header: 'mcp-protocol-version', from: header, to: undefined, reason: MODERN_VERSIONS.includes(header) ? 'modern version without _meta' : 'unknown version' } };
}
