/**
 * Showing a configured URL in a message or log without the secrets it may carry (a database or
 * Redis password in the userinfo, a token in the query string). One place, so that every message
 * masks the same way.
 */

/** The URL with the password of its userinfo replaced by `***`; `unparsable` when it is no URL. */
export function redactUrl(url: string, unparsable = '(unparsable URL)'): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return unparsable;
  }
}

/** Origin and path only, for URLs whose query string or userinfo may hold credentials. */
export function urlOriginAndPath(url: string, unparsable = '(configured URL)'): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return unparsable;
  }
}

/** Masks the userinfo password of every URL found in a free text (a config value quoted in an error). */
export function redactUrls(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^/\s:@]*):[^/\s@]*@/gi, '$1:***@');
}
