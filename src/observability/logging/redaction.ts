/**
 * Secrets never reach a log line. Two layers, because neither alone is enough:
 *
 * - by key: pino's `redact` replaces the values of fields whose names say they hold a secret
 *   (`password`, `authorization`, `cookie`, push `credentials`, …), whatever their shape;
 * - by shape: every finished line is scrubbed of what looks like a secret wherever it sits — an
 *   API key, a bearer token, a JWT, a URL's password, a credential in a query string — and of the
 *   exact secrets this server was configured with. An error message quoting a database URL, or a
 *   header echoed in a library's message, is caught here.
 */

/** What a redacted value becomes. */
export const REDACTED = '[redacted]';

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** Field names whose values are secrets, at the top of a log object or one level down. */
const SECRET_FIELDS = [
  'password',
  'passwd',
  'secret',
  'clientSecret',
  'client_secret',
  'sharedSecret',
  'apiKey',
  'api_key',
  'token',
  'accessToken',
  'access_token',
  'refreshToken',
  'refresh_token',
  'idToken',
  'id_token',
  'authorization',
  'Authorization',
  'cookie',
  'Cookie',
  'set-cookie',
  'credentials',
  'privateKey',
];

/** pino `redact.paths`: each secret field at the top level, one level down, and in headers and push configs. */
export const REDACT_PATHS: readonly string[] = [
  ...SECRET_FIELDS.flatMap((f) => (IDENTIFIER.test(f) ? [f, `*.${f}`] : [`*["${f}"]`])),
  ...['authorization', 'cookie', 'set-cookie', 'x-api-key', 'proxy-authorization'].flatMap((h) => [`headers["${h}"]`, `*.headers["${h}"]`]),
  'authentication.credentials',
  '*.authentication.credentials',
  'pushNotificationConfig.token',
  '*.pushNotificationConfig.token',
];

/**
 * Shapes of secrets, each with what it becomes. Applied to a finished JSON line, so a pattern
 * must not cross a `"` (the end of a JSON string).
 */
const SHAPES: ReadonlyArray<readonly [RegExp, string]> = [
  // Stored API keys: ap_<keyId>_<secret>; the key id is safe to show (it is how a key is named).
  [/\bap_([0-9a-f]{16})_[A-Za-z0-9_-]{8,}/g, `ap_$1_${REDACTED}`],
  // Authorization header values quoted in messages.
  [/\b(Bearer|Basic|DPoP)(\s+|%20)[A-Za-z0-9._~+/=-]{6,}/gi, `$1 ${REDACTED}`],
  // JWTs (ID tokens, access tokens, push tokens) wherever they appear.
  [/\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, REDACTED],
  // URL userinfo with a password: redis://user:pass@host, postgres://:pass@host.
  [/([a-z][a-z0-9+.-]*:\/\/[^/\s:@"]*):[^/\s@"]+@/gi, `$1:${REDACTED}@`],
  // Credentials in a query string or a form body.
  [/([?&](?:access_token|refresh_token|id_token|token|client_secret|password|api_key|apikey|secret|code_verifier)=)[^&\s#"\\]+/gi, `$1${REDACTED}`],
];

/** Whether a text may hold one of SHAPES: one pass, so that most lines cost one regex test. */
const MAY_HOLD_SHAPE = /ap_[0-9a-f]{16}_|bearer|basic|dpop|eyJ|:\/\/[^/\s"]*@|[?&](?:access_token|refresh_token|id_token|token|client_secret|password|api_key|apikey|secret|code_verifier)=/i;

/** Secrets shorter than this are not scrubbed by value: replacing them would mangle ordinary words. */
const MIN_SECRET_LENGTH = 8;

export class SecretScrubber {
  /** the configured secrets as they appear inside a JSON string, longest first */
  private readonly exact: string[];

  constructor(knownSecrets: Iterable<string> = []) {
    const escaped = new Set<string>();
    for (const s of knownSecrets) {
      if (s.length < MIN_SECRET_LENGTH) continue;
      escaped.add(s);
      escaped.add(JSON.stringify(s).slice(1, -1));
    }
    this.exact = [...escaped].sort((a, b) => b.length - a.length);
  }

  /** The text with every known secret and every secret-shaped part replaced. */
  scrub(text: string): string {
    let out = text;
    for (const secret of this.exact) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    if (!MAY_HOLD_SHAPE.test(out)) return out;
    for (const [shape, replacement] of SHAPES) out = out.replace(shape, replacement);
    return out;
  }
}
