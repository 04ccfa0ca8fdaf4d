/**
 * A connect link opened without a console session (issue 27, src/bindings/remote-connect/connect-routes.ts) sends
 * the browser here as `#connect=<the link>`; the hash survives sign-in, and once the browser is
 * signed in the console opens the link again. Only a connect link of this same origin is followed:
 * the hash is anyone's to write, so it must not turn the console into an open redirect.
 */
export function connectLinkToReturnTo(): string | undefined {
  const m = /^#connect=(.+)$/.exec(location.hash);
  if (!m) return undefined;
  try {
    const link = new URL(decodeURIComponent(m[1]!), location.href);
    return link.origin === location.origin && link.pathname.endsWith('/connect/start') ? link.href : undefined;
  } catch {
    return undefined;
  }
}
