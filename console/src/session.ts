/**
 * Sign-in: the console is a public OAuth client of Agentport's own authorization server
 * (authorization code with PKCE, S256). The browser runs the code flow, hands the access token
 * to `POST session` once, and forgets it: from then on a server-side session (an HttpOnly,
 * SameSite=Strict cookie) and its CSRF token stand for the user (docs/console.md).
 */
import { call, consoleUrl, useCsrfToken } from './api.js';

export interface SignInSettings {
  authorizeUrl: string;
  tokenUrl: string;
  clientId: string;
  redirectUri: string;
  scope: string;
}

/** `open`: authentication is off on this server (auth.mode none): no sign-in, no sign-out. */
export type Session = { signedIn: true; open?: boolean; username: string; scopes: string[]; admin: boolean; connections?: boolean; csrf: string } | { signedIn: false; signIn?: SignInSettings; reason?: string };

const PENDING = 'agentport-console:sign-in';

function base64url(bytes: ArrayBuffer | Uint8Array): string {
  let text = '';
  for (const b of new Uint8Array(bytes)) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

const randomText = () => base64url(crypto.getRandomValues(new Uint8Array(32)));

export async function readSession(): Promise<Session> {
  const s = (await (await call(consoleUrl('session'))).json()) as Session;
  useCsrfToken(s.signedIn ? s.csrf : '');
  return s;
}

/** Goes to the authorization server; it comes back to the console with `?code=…&state=…`. */
export async function beginSignIn(s: SignInSettings): Promise<void> {
  const verifier = randomText();
  const state = randomText();
  const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state, back: location.hash }));
  const url = new URL(s.authorizeUrl);
  // prompt=login: the password every time, even while the OAuth server remembers the browser, so
  // signing out of the console means something on a shared machine.
  const params = { response_type: 'code', client_id: s.clientId, redirect_uri: s.redirectUri, scope: s.scope, state, code_challenge: challenge, code_challenge_method: 'S256', prompt: 'login' };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  location.assign(url.href);
}

/** After the redirect back: the code for a token, the token for a session. False when this is no return from sign-in. */
export async function finishSignIn(s: SignInSettings): Promise<boolean> {
  const params = new URLSearchParams(location.search);
  const code = params.get('code');
  const error = params.get('error');
  if (!code && !error) return false;
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null') as { verifier: string; state: string; back: string } | null;
  sessionStorage.removeItem(PENDING);
  history.replaceState(null, '', `${location.pathname}${pending?.back ?? ''}`);
  if (error) throw new Error(params.get('error_description') ?? error);
  if (!pending || params.get('state') !== pending.state) throw new Error('The sign-in answer does not match the sign-in this browser started; sign in again.');
  const res = await fetch(s.tokenUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: code!, redirect_uri: s.redirectUri, client_id: s.clientId, code_verifier: pending.verifier }),
  });
  const token = (await res.json()) as { access_token?: string; error_description?: string; error?: string };
  if (!res.ok || !token.access_token) throw new Error(token.error_description ?? token.error ?? `token request failed (${res.status})`);
  await call(consoleUrl('session'), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ accessToken: token.access_token }) });
  return true;
}

export async function signOut(): Promise<void> {
  await call(consoleUrl('session/end'), { method: 'POST' });
  useCsrfToken('');
}
