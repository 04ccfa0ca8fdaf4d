/**
 * A2A service parameters, one set of rules for every binding: version negotiation (spec §3.6) and
 * extension activation (§3.3.4). HTTP carries them as `A2A-Version` / `A2A-Extensions` headers,
 * gRPC as `a2a-version` / `a2a-extensions` metadata.
 */
import { A2AError } from '../../protocol/a2a/errors.js';

/** The A2A version this binding speaks, Major.Minor. */
export const SUPPORTED_VERSION = '1.0';
/** Spec §3.6.2: a request without a version (or an empty one) is a v0.3 request. */
const IMPLIED_VERSION = '0.3';
const VERSION = /^(\d+)\.(\d+)(?:\.\d+)?$/;

/**
 * Accepts "1.0" and "1.0.x" (a patch MUST be ignored, spec §3.6); anything else is
 * VersionNotSupported (§3.6.2). `parameter` names the header or metadata key in the message.
 */
export function negotiateVersion(requested: string | undefined, parameter = 'a2a-version'): void {
  // The version itself (nearly every call): no match array and no joined string to compare.
  if (requested === SUPPORTED_VERSION) return;
  const value = requested?.trim() || IMPLIED_VERSION;
  const m = VERSION.exec(value);
  if (m && `${Number(m[1])}.${Number(m[2])}` === SUPPORTED_VERSION) return;
  const why = requested?.trim() ? `A2A version '${value}' is not supported` : `No ${parameter} was sent, which means ${IMPLIED_VERSION}`;
  throw new A2AError('VersionNotSupported', `${why}; this endpoint supports ${SUPPORTED_VERSION}`, {
    metadata: { requestedVersion: value, supportedVersions: SUPPORTED_VERSION },
  });
}

/**
 * True when a request names v0.3 (any patch) or no version at all (§3.6.2: absent means 0.3).
 * Only bindings that translate v0.3 at the edge ask; the others refuse such requests.
 */
export function isV03Version(requested: string | undefined): boolean {
  const m = VERSION.exec(requested?.trim() || IMPLIED_VERSION);
  return m !== null && `${Number(m[1])}.${Number(m[2])}` === IMPLIED_VERSION;
}

/** The extension URIs a request asks for: comma-separated, possibly over several metadata entries. */
export function parseExtensions(values: readonly string[]): string[] {
  // Nearly every call asks for none: no header, no four lists and a set to find that out.
  if (values.length === 0) return [];
  const uris = values
    .flatMap((v) => v.split(','))
    .map((u) => u.trim())
    .filter((u) => u.length > 0);
  return [...new Set(uris)];
}

/**
 * Spec §3.3.4: every extension the agent marks `required` must be requested, or the call fails with
 * ExtensionSupportRequired. The activated set (requested ∩ supported) is what the server echoes back.
 */
export function activateExtensions(declared: { supported: readonly string[]; required: readonly string[] } | undefined, requested: readonly string[]): string[] {
  if (!declared) return [];
  // No extension asked for and none required (nearly every call): nothing is activated.
  if (requested.length === 0 && declared.required.length === 0) return [];
  const missing = declared.required.filter((uri) => !requested.includes(uri));
  if (missing.length > 0) {
    throw new A2AError('ExtensionSupportRequired', `This agent requires the extension(s) ${missing.join(', ')}; activate them with the A2A-Extensions header (a2a-extensions metadata on gRPC)`, {
      metadata: { requiredExtensions: missing.join(',') },
    });
  }
  const known = new Set([...declared.supported, ...declared.required]);
  return requested.filter((uri) => known.has(uri));
}

/** A header that may arrive repeated, as the list of its values. */
export function headerValues(v: string | string[] | undefined): string[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}
