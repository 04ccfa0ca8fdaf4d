/**
 * The console's sign-in as its page runs it, without a browser: the authorization code flow with
 * PKCE for the console's own client (every scope asked, `prompt=login`), walked by whatever signs
 * in (a password, the upstream IdP, a token), then the access token handed to `POST
 * /console/session`. Returns the session's cookie header, its CSRF token and what the server
 * answered, so a test can look at the cookie and the access token too.
 */
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';

export const CONSOLE_SCOPE = 'a2a:discover a2a:publish mcp:tools usage:read admin';

export interface ConsoleSignIn {
  accessToken: string;
  /** `ap_console=…`, to send back */
  cookie: string;
  /** the whole Set-Cookie of the session */
  setCookie: string;
  csrf: string;
  session: { signedIn: boolean; username: string; scopes: string[]; admin: boolean };
}

/** `walk(authorizeUrl, redirectUri)` follows the sign-in and returns the redirect back to the console (with `code`). */
export async function consoleSignIn(http: string, walk: (authorizeUrl: string, redirectUri: string) => Promise<URL | undefined>): Promise<ConsoleSignIn> {
  const redirectUri = `${http}/console/`;
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: 'agentport-console',
    redirect_uri: redirectUri,
    scope: CONSOLE_SCOPE,
    state: 'st',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    prompt: 'login',
  });
  const back = await walk(`${http}/oauth/authorize?${q}`, redirectUri);
  const code = back?.searchParams.get('code');
  expect(code, 'the sign-in came back to the console with a code').toBeTruthy();
  const res = await fetch(`${http}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: code!, redirect_uri: redirectUri, client_id: 'agentport-console', code_verifier: verifier }),
  });
  const accessToken = ((await res.json()) as { access_token: string }).access_token;
  const started = await fetch(`${http}/console/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ accessToken }) });
  expect(started.status, await started.clone().text()).toBe(201);
  const setCookie = started.headers.getSetCookie()[0]!;
  const cookie = setCookie.split(';')[0]!;
  const session = (await (await fetch(`${http}/console/session`, { headers: { cookie } })).json()) as ConsoleSignIn['session'] & { csrf: string };
  return { accessToken, cookie, setCookie, csrf: session.csrf, session };
}
